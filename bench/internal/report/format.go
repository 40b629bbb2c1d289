package report

import (
	"math"
	"strconv"
)

// Float formats v with prec decimals; NaN (a missing measurement) is "-".
func Float(v float64, prec int) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// Int formats an integer count.
func Int(v int64) string { return strconv.FormatInt(v, 10) }

// Ratio formats a/b as "0.83x" (kvenc / peer: below 1 means kvenc is smaller
// or faster). A zero or missing b gives "-".
func Ratio(a, b float64) string {
	if b == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return "-"
	}
	return strconv.FormatFloat(a/b, 'f', 2, 64) + "x"
}

// NS formats nanoseconds with a precision that suits their size.
func NS(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case v < 10:
		return Float(v, 2)
	case v < 1000:
		return Float(v, 1)
	}
	return Float(v, 0)
}
