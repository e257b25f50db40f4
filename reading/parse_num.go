package reading

import (
	"maps"
	"math"
	"strconv"
)

// number is a numeric word read exactly: "1.5b" is digits "15", exp -1,
// suffix "b". Values are computed in integers so that "6.738415616b" is
// exactly 6,738,415,616 and never a float rounding of it.
type number struct {
	neg    bool
	digits string // the decimal digits without the point, leading zeros kept
	exp    int    // value = digits × 10^exp
	suffix string // "", "k", "m", "b" or "t" (words like "billion" normalised)
}

// suffixes maps what may follow a number in one word to its one-letter
// form: the scale words ("2thousand", "5bn") and the letters and short
// forms said only glued ("4k", "10mil") (vocab.txt: the sets
// scale_SUFFIX and suffix_SUFFIX).
var suffixes = func() map[string]string {
	s := vocab.values("suffix")
	maps.Copy(s, scaleWords)
	return s
}()

// The scales a number's suffix stands for, as powers of ten
// (number.scale): "4k" is thousands, "7b" billions.
const (
	scaleOne      = 0
	scaleThousand = 3
	scaleMillion  = 6
	scaleBillion  = 9
	scaleTrillion = 12
)

// suffixExp is the power of ten each suffix stands for.
var suffixExp = map[string]int{"": scaleOne, "k": scaleThousand, "m": scaleMillion, "b": scaleBillion, "t": scaleTrillion}

// scale is the power of ten n's suffix stands for: scaleOne for "4096",
// scaleThousand for "4k".
func (n number) scale() int { return suffixExp[n.suffix] }

// sizeScaled reports whether n is scaled as a model's size is said, in
// millions or billions of parameters ("350m", "7b").
func (n number) sizeScaled() bool {
	s := n.scale()
	return s == scaleMillion || s == scaleBillion
}

// parseNumber reads a word such as "4096", "4k", "1.5b", "-5b", "1e30" or
// "0.6B" (keys are lower case). It reports false for anything else.
func parseNumber(key string) (number, bool) {
	var n number
	i := 0
	if i < len(key) && key[i] == '-' {
		n.neg = true
		i++
	}
	start := i
	for i < len(key) && isDigit(key[i]) {
		i++
	}
	intPart := key[start:i]
	frac := ""
	if i < len(key) && key[i] == '.' {
		j := i + 1
		for j < len(key) && isDigit(key[j]) {
			j++
		}
		frac = key[i+1 : j]
		if frac == "" {
			return number{}, false
		}
		i = j
	}
	if intPart == "" && frac == "" {
		return number{}, false
	}
	n.digits = intPart + frac
	n.exp = -len(frac)
	if i < len(key) && key[i] == 'e' && i+1 < len(key) && (isDigit(key[i+1]) || key[i+1] == '-' || key[i+1] == '+') {
		j := i + 1
		if key[j] == '-' || key[j] == '+' {
			j++
		}
		k := j
		for k < len(key) && isDigit(key[k]) {
			k++
		}
		if k == j || k-j > 4 {
			return number{}, false
		}
		e, _ := strconv.Atoi(key[i+1 : k])
		n.exp += e
		i = k
	}
	if i < len(key) {
		s, ok := suffixes[key[i:]]
		if !ok {
			return number{}, false
		}
		n.suffix = s
	}
	return n, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// numberLen is how many of s's leading bytes are digits or points: the
// number of "50ms" or "1.5x" (a loop: strings.TrimLeft builds its set of
// bytes at each call, and this runs at every number of every question).
func numberLen(s string) int {
	n := 0
	for n < len(s) && (isDigit(s[n]) || s[n] == '.') {
		n++
	}
	return n
}

// isInteger reports whether n is a plain whole number with no suffix, as a
// count must be ("2", not "2.5" or "2k").
func (n number) isInteger() bool {
	if n.suffix != "" || n.neg {
		return false
	}
	_, ok := n.scaled(1)
	return ok
}

// approx is n as a float, for magnitude checks and messages only.
func (n number) approx(unit float64) float64 {
	f, _ := strconv.ParseFloat(n.digits, 64)
	f *= math.Pow(10, float64(n.exp)) * unit
	if n.neg {
		f = -f
	}
	return f
}

// scaled is n × unit as an exact int64. It reports false when the result
// is not a whole number or does not fit in an int64. The sign is applied.
func (n number) scaled(unit int64) (int64, bool) {
	// A decimal fraction divides the unit first ("10.000001t" is
	// 10000001 × 10^6), so that the product does not overflow on the way.
	for n.exp < 0 && unit%10 == 0 {
		unit /= 10
		n.exp++
	}
	d := n.digits
	for len(d) > 1 && d[0] == '0' {
		d = d[1:]
	}
	if len(d) > 18 {
		return 0, false
	}
	v, err := strconv.ParseInt(d, 10, 64)
	if err != nil {
		return 0, false
	}
	exp := n.exp
	if v != 0 && unit > math.MaxInt64/v {
		return 0, false
	}
	v *= unit
	for e := exp; e > 0; e-- {
		if v > math.MaxInt64/10 {
			return 0, false
		}
		v *= 10
	}
	for e := exp; e < 0; e++ {
		if v%10 != 0 {
			return 0, false
		}
		v /= 10
	}
	if n.neg {
		v = -v
	}
	return v, true
}

// decimalUnit is the multiplier of a suffix for counts of parameters and
// tokens: k = 10^3, m = 10^6, b = 10^9, t = 10^12.
func decimalUnit(suffix string) int64 {
	u := int64(1)
	for range suffixExp[suffix] {
		u *= 10
	}
	return u
}

// contextUnit is the multiplier of a suffix for a context length, where
// "4k" means 4,096 and "128k" 131,072 as model cards use them.
// A thousand is 2^10, a million 2^20, a billion or more 2^30.
func contextUnit(suffix string) int64 {
	return 1 << (min(suffixExp[suffix], scaleBillion) / scaleThousand * 10)
}
