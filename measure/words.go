package measure

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// unitKind is what a unit measures.
type unitKind int

const (
	memoryUnit unitKind = iota + 1
	speedUnit
	timeUnit
	percentUnit
)

// unit is one spelling of a unit: its kind and what one of it is in
// bytes, tokens per second, hours or a fraction.
type unit struct {
	kind  unitKind
	scale float64
}

// of is v of the unit in bytes, tokens per second, hours or a fraction;
// a unit below one divides, so 41% is exactly 0.41.
func (u unit) of(v float64) float64 {
	if u.scale < 1 {
		return v / (1 / u.scale)
	}
	return v * u.scale
}

// units are the spellings people type after a measured figure. GB, MB and
// TB are the SI units as written; gigs, gig and g are taken as GiB, which
// is what nvidia-smi and PyTorch print.
var units = map[string]unit{
	"b": {memoryUnit, 1}, "bytes": {memoryUnit, 1},
	"kb": {memoryUnit, 1e3}, "kib": {memoryUnit, 1 << 10},
	"mb": {memoryUnit, 1e6}, "mib": {memoryUnit, 1 << 20},
	"gb": {memoryUnit, 1e9}, "gib": {memoryUnit, GiB}, "gigs": {memoryUnit, GiB}, "gig": {memoryUnit, GiB}, "g": {memoryUnit, GiB},
	"tb": {memoryUnit, 1e12}, "tib": {memoryUnit, 1 << 40},

	"tok/s": {speedUnit, 1}, "tokens/s": {speedUnit, 1}, "token/s": {speedUnit, 1}, "t/s": {speedUnit, 1},
	"tps": {speedUnit, 1}, "tok/sec": {speedUnit, 1}, "tokens/sec": {speedUnit, 1},
	"tokens per second": {speedUnit, 1}, "tokens a second": {speedUnit, 1},

	"h": {timeUnit, 1}, "hr": {timeUnit, 1}, "hrs": {timeUnit, 1}, "hour": {timeUnit, 1}, "hours": {timeUnit, 1},
	"min": {timeUnit, 1.0 / 60}, "mins": {timeUnit, 1.0 / 60}, "minutes": {timeUnit, 1.0 / 60},
	"d": {timeUnit, 24}, "day": {timeUnit, 24}, "days": {timeUnit, 24},

	"%": {percentUnit, 0.01},
}

// fillers are the words a measurement may carry besides its figures.
var fillers = map[string]bool{
	"measured": true, "measure": true, "peak": true, "memory": true, "mem": true, "vram": true, "used": true,
	"speed": true, "throughput": true, "took": true, "ran": true, "run": true, "for": true, "in": true,
	"and": true, "of": true, "at": true, "was": true, "is": true, "a": true, "per": true, "gpu": true,
	"time": true, "wall": true, "clock": true, "tensor": true, "active": true, "activity": true, "about": true, "~": true,
	"peaked": true, "actually": true, "really": true, "total": true,
}

// hoursMinutes is a time written as hours and minutes: "7h10m", "7h 10min".
var hoursMinutes = regexp.MustCompile(`(?i)\b(\d+)\s*h\s*(\d+)\s*m(?:ins?|inutes)?\b`)

// inHours writes "7h10m" as hours ("7.1667 h"), the one unit figure reads.
func inHours(s string) string {
	return hoursMinutes.ReplaceAllStringFunc(s, func(m string) string {
		p := hoursMinutes.FindStringSubmatch(m)
		h, errH := strconv.Atoi(p[1])
		min, errM := strconv.Atoi(p[2])
		if errH != nil || errM != nil {
			return m // too long to be a time: figure names it
		}
		return strconv.FormatFloat(float64(h)+float64(min)/60, 'f', 4, 64) + " h"
	})
}

// figure is a number and the unit after it: "3,150 tok/s", "71GiB", "5.2 h".
var figure = regexp.MustCompile(`(?i)(\d[\d,]*(?:\.\d+)?|\.\d+)\s*(tokens per second|tokens a second|tokens?/s(?:ec)?|tok/s(?:ec)?|t/s|tps|bytes|[kmgt]i?b|gigs?|g|hrs?|hours?|h|mins?|minutes|days?|d|%)?(?:\b|$|\s)`)

// ParseBytes reads a memory size as people type it: "71GB", "71 gigs",
// "71000 MiB", "71 GiB", "76235669504" (bytes).
func ParseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	m := figure.FindStringSubmatch(s)
	if m == nil || strings.TrimSpace(m[0]) != s {
		return 0, fmt.Errorf("%q is not a memory size (try 71GiB, 71 GB or 72704 MiB)", s)
	}
	v, err := number(m[1])
	if err != nil {
		return 0, err
	}
	name := strings.ToLower(m[2])
	if name == "" {
		return int64(v), nil
	}
	u, ok := units[name]
	if !ok || u.kind != memoryUnit {
		return 0, fmt.Errorf("%q is not a memory size (try 71GiB, 71 GB or 72704 MiB)", s)
	}
	return int64(u.of(v)), nil
}

// ParseWords reads a measurement typed in a sentence: "measured peak 71
// GiB, 3,150 tok/s, 5.2 h". Every figure needs its unit; a word that is
// neither a figure nor one of the few words around them is named in the
// error, so nothing is half read.
func ParseWords(s string) (Run, error) {
	var r Run
	rest := inHours(strings.ToLower(s))
	var unknown []string
	last := 0
	for _, loc := range figure.FindAllStringSubmatchIndex(rest, -1) {
		unknown = append(unknown, leftover(rest[last:loc[0]])...)
		last = loc[1]
		num := rest[loc[2]:loc[3]]
		name := ""
		if loc[4] >= 0 {
			name = rest[loc[4]:loc[5]]
		}
		if name == "" {
			return Run{}, fmt.Errorf("%s has no unit: say GiB, tok/s or h", num)
		}
		v, err := number(num)
		if err != nil {
			return Run{}, err
		}
		u := units[name]
		if err := r.set(u, v, num+" "+name); err != nil {
			return Run{}, err
		}
	}
	unknown = append(unknown, leftover(rest[last:])...)
	if len(unknown) > 0 {
		return Run{}, fmt.Errorf("not understood: %s (a measurement reads like: peak 71 GiB, 3150 tok/s, 5.2 h)", strings.Join(unknown, " "))
	}
	if r.Empty() {
		return Run{}, ErrNothingMeasured
	}
	return r, nil
}

// set records one figure, refusing a second figure of the same kind.
func (r *Run) set(u unit, v float64, typed string) error {
	var slot *float64
	var peak float64
	switch u.kind {
	case memoryUnit:
		slot = &peak
		if r.PeakBytes != 0 {
			return fmt.Errorf("two memory figures (%s and another): give the busiest GPU's peak once", typed)
		}
	case speedUnit:
		slot = &r.TokensPerSecond
	case timeUnit:
		slot = &r.Hours
	case percentUnit:
		slot = &r.TensorActive
	}
	if *slot != 0 {
		return fmt.Errorf("two figures of the same kind (the second is %s)", typed)
	}
	*slot = u.of(v)
	if u.kind == memoryUnit {
		r.PeakBytes = int64(peak)
	}
	return nil
}

// leftover is the words between figures that are not fillers.
func leftover(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(s, func(c rune) bool { return c == ' ' || c == ',' || c == ';' || c == '\t' || c == '\n' }) {
		if !fillers[w] {
			out = append(out, w)
		}
	}
	return out
}

// number reads "3,150", "5.2" or ".5".
func number(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}
