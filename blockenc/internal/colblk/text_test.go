package colblk

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestParseDecimalText: exactly what strconv.FormatFloat(v, 'f', -1, 64)
// writes qualifies, or that with ".0" after an integral value.
func TestParseDecimalText(t *testing.T) {
	const both = textGo | 0x80
	for _, c := range []struct {
		text  string
		ok    bool
		style byte
	}{
		{"64.2", true, both}, {"0.25", true, both}, {"-3", true, textGo}, {"0", true, textGo},
		{"-0", true, textGo}, {"1700000000", true, textGo}, {"0.1", true, both},
		{"123456789012345680000", true, textGo},
		{"16.0", true, textPoint}, {"-3.0", true, textPoint}, {"0.0", true, textPoint}, {"-0.0", true, textPoint},
		{"64.20", false, 0}, {"+1", false, 0}, {".5", false, 0}, {"1e3", false, 0}, {"00.5", false, 0},
		{"0.1000000000000000055511", false, 0}, {"NaN", false, 0}, {"+Inf", false, 0},
		{"", false, 0}, {"-", false, 0}, {"1.", false, 0}, {"1,5", false, 0}, {" 1", false, 0},
		{"16.00", false, 0}, {"1.5.0", false, 0}, {"1234567890123456789012345", false, 0},
	} {
		v, style, ok := parseDecimalText([]byte(c.text))
		assert.Equal(t, c.ok, ok, "%q", c.text)
		if !ok {
			continue
		}
		assert.Equal(t, c.style, style, "%q: style", c.text)
		assert.Equal(t, c.text, string(appendDecimalText(nil, v, style&^0x80)), "%q", c.text)
		if style == both {
			assert.Equal(t, c.text, string(appendDecimalText(nil, v, textPoint)), "%q in the point style", c.text)
		}
		if style&^0x80 == textGo {
			assert.Equal(t, c.text, strconv.FormatFloat(v, 'f', -1, 64), "%q", c.text)
		}
	}
	v, _, ok := parseDecimalText([]byte("-0"))
	assert.True(t, ok && math.Signbit(v), "-0 is negative zero")
	assert.Zero(t, testing.AllocsPerRun(10, func() { parseDecimalText([]byte("21168.23")) }), "allocs")
}
