package shapeshift

import "math"

// The decimal transform of float chunks (ALP's, Afroozeh, Kuffo and Boncz,
// SIGMOD 2024). A value v is stored as the integer
//
//	x = round(v * 10^e * 10^-f)
//
// when decimal(x, e, f) = x * 10^f * 10^-e gives back v's exact bits. The
// exponent e scales the decimal digits into the integer, the factor f
// drops trailing zeros from it. Decoding is the definition: two IEEE-754
// double multiplications, left to right, by pow10[f] (exact) and
// negPow10[e] (the double nearest 10^-e).

// maxExp is the largest exponent and factor of a Decimal chunk.
const maxExp = 18

// pow10[i] is 10^i, exact in a float64.
var pow10 = [maxExp + 1]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// negPow10[i] is the float64 nearest 10^-i.
var negPow10 = [maxExp + 1]float64{1, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9,
	1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18}

// maxDecimal bounds |v * 10^e * 10^-f| for rounding: below 2^51, adding
// and subtracting roundMagic rounds to the nearest integer (ties to even).
const (
	maxDecimal = 1 << 51
	roundMagic = 1<<52 + 1<<51
)

// decimal is the Decimal form's decoding of integer x with the multipliers
// pf = pow10[f] and ne = negPow10[e]. The conversions make the rounding of
// each step explicit (no fused operations).
func decimal(x int64, pf, ne float64) float64 {
	return float64(float64(x)*pf) * ne
}

// toDecimal returns round(v * pe * nf) for pe = pow10[e], nf = negPow10[f],
// and whether it is in range (false for NaN, infinities and large values).
func toDecimal(v, pe, nf float64) (int64, bool) {
	t := float64(float64(v*pe) * nf)
	if !(math.Abs(t) < maxDecimal) {
		return 0, false
	}
	return int64(float64(t+roundMagic) - roundMagic), true
}

// sameBits reports whether d, narrowed to w bytes, has the bit pattern b
// (a float64's, or a float32's in the low 32 bits).
func sameBits(d float64, b uint64, w int) bool {
	if w == 4 {
		return uint64(math.Float32bits(float32(d))) == b
	}
	return math.Float64bits(d) == b
}

// noDecimal is minDecimals' answer for a value that no exponent brings back.
const noDecimal = maxExp + 1

// minDecimals returns the smallest e (f = 0) with which v (bits b, width w)
// comes back exactly, or noDecimal.
func minDecimals(v float64, b uint64, w int) int {
	for e := 0; e <= maxExp; e++ {
		x, ok := toDecimal(v, pow10[e], 1)
		if !ok {
			break // larger exponents only grow |v * 10^e|
		}
		if sameBits(decimal(x, 1, negPow10[e]), b, w) {
			return e
		}
	}
	return noDecimal
}

// decimalZeros returns how many trailing decimal zeros x has, up to max
// (max for 0).
func decimalZeros(x int64, max int) int {
	n := 0
	for n < max && x%10 == 0 {
		if x == 0 {
			return max
		}
		x /= 10
		n++
	}
	return n
}
