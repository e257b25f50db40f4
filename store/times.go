package store

import (
	"database/sql"
	"fmt"
	"time"
)

// timeLayout is how every time is stored: UTC, fixed width, nanoseconds,
// so that text order is time order and SQLite's date functions read it.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// formatTime is t as stored.
func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// parseTime reads a stored time.
func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored time %q: %w", s, err)
	}
	return t, nil
}

// optionalTime is t as stored, or NULL for the zero time.
func optionalTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return formatTime(t)
}

// parseOptionalTime reads a stored time that may be NULL (the zero time).
func parseOptionalTime(s sql.NullString) (time.Time, error) {
	if !s.Valid {
		return time.Time{}, nil
	}
	return parseTime(s.String)
}
