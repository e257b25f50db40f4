package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
)

// newLogger returns serve's logger: JSON lines, or text when format is
// "text", or "auto" with w a terminal. Every record goes through a
// redactor that replaces the configured secrets wherever they appear, a
// second line of defence behind the secret type: an error from a library
// that echoes a token is logged as "[redacted]".
func newLogger(w io.Writer, level slog.Level, format string, secrets []string) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	if format == "text" || (format == "auto" && isTerminal(w)) {
		h = slog.NewTextHandler(w, opts)
	} else {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(newRedactor(h, secrets))
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// redactor is a slog.Handler that replaces secret values in the message
// and in every attribute, groups and errors included, before the record
// reaches the handler it wraps.
type redactor struct {
	inner   slog.Handler
	replace *strings.Replacer
	secrets []string // what replace replaces, to look for first
}

// minSecretLen is the shortest value treated as a secret; shorter ones
// would redact ordinary words.
const minSecretLen = 6

func newRedactor(inner slog.Handler, secrets []string) slog.Handler {
	var pairs, found []string
	for _, s := range secrets {
		if len(s) >= minSecretLen && !slices.Contains(found, s) {
			pairs = append(pairs, s, redacted)
			found = append(found, s)
		}
	}
	if len(pairs) == 0 {
		return inner
	}
	return &redactor{inner: inner, replace: strings.NewReplacer(pairs...), secrets: found}
}

// clean returns s with the secrets replaced. Most strings hold none, and
// looking costs no allocation where Replace always makes a copy (it was
// a tenth of serve's allocations under load, a line per question).
func (r *redactor) clean(s string) string {
	if r.holds(s) {
		return r.replace.Replace(s)
	}
	return s
}

// holds reports whether s holds a secret.
func (r *redactor) holds(s string) bool {
	for _, secret := range r.secrets {
		if strings.Contains(s, secret) {
			return true
		}
	}
	return false
}

func (r *redactor) Enabled(ctx context.Context, l slog.Level) bool { return r.inner.Enabled(ctx, l) }

// Handle passes a record that holds no secret on as it is (most records:
// no copy, no new attributes), and any other with the secrets replaced.
func (r *redactor) Handle(ctx context.Context, rec slog.Record) error {
	dirty := r.holds(rec.Message)
	rec.Attrs(func(a slog.Attr) bool {
		dirty = dirty || r.attrHolds(a)
		return !dirty
	})
	if !dirty {
		return r.inner.Handle(ctx, rec)
	}
	out := slog.NewRecord(rec.Time, rec.Level, r.clean(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(r.attr(a))
		return true
	})
	return r.inner.Handle(ctx, out)
}

func (r *redactor) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = r.attr(a)
	}
	return &redactor{inner: r.inner.WithAttrs(clean), replace: r.replace, secrets: r.secrets}
}

func (r *redactor) WithGroup(name string) slog.Handler {
	return &redactor{inner: r.inner.WithGroup(name), replace: r.replace, secrets: r.secrets}
}

// attrHolds reports whether a's value holds a secret: only strings,
// groups and values judged by how they print (KindAny) can.
func (r *redactor) attrHolds(a slog.Attr) bool {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return r.holds(v.String())
	case slog.KindGroup:
		return slices.ContainsFunc(v.Group(), r.attrHolds)
	case slog.KindAny:
		return r.holds(fmt.Sprint(v.Any()))
	}
	return false
}

// attr returns a with the secrets replaced in its value.
func (r *redactor) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		a.Value = slog.StringValue(r.clean(v.String()))
	case slog.KindGroup:
		g := v.Group()
		clean := make([]slog.Attr, len(g))
		for i, ga := range g {
			clean[i] = r.attr(ga)
		}
		a.Value = slog.GroupValue(clean...)
	case slog.KindAny:
		// Errors, structs and the like: judged by how they print.
		s := fmt.Sprint(v.Any())
		if c := r.clean(s); c != s {
			a.Value = slog.StringValue(c)
		} else {
			a.Value = v
		}
	default:
		a.Value = v
	}
	return a
}
