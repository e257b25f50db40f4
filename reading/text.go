package reading

import "strconv"

// quote writes s between double quotes, as the notes and refusals quote
// the asker's words.
func quote(s string) string { return `"` + s + `"` }

// formatFloat writes v in its shortest decimal form.
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// orDefault is s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
