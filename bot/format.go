package bot

import (
	"fmt"
	"time"
)

// formatAge says how old a price is in words ("3 h old", "2 days old").
func formatAge(asOf, now time.Time) string {
	d := now.Sub(asOf)
	switch {
	case asOf.IsZero():
		return "age unknown"
	case d < time.Hour:
		return "under an hour old"
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h old", int(d.Hours()))
	default:
		return fmt.Sprintf("%d days old", int(d.Hours()/24))
	}
}
