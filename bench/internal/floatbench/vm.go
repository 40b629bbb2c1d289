package floatbench

import (
	"github.com/VictoriaMetrics/VictoriaMetrics/lib/decimal"
	"github.com/VictoriaMetrics/VictoriaMetrics/lib/encoding"
)

// vmHeaderBytes is what VictoriaMetrics keeps in a block header for the
// values besides the marshalled bytes: the first value (8 bytes), the
// decimal exponent (2) and the marshal type (1).
const vmHeaderBytes = 8 + 2 + 1

func vmCodec() Codec {
	return Codec{Name: "vm", Encode: func(values []float64) (Encoded, error) {
		mant, exp := decimal.AppendFloatToDecimal(nil, values)
		b, mt, first := encoding.MarshalValues(nil, mant, 64)
		return &vmEnc{n: len(values), data: b, mt: mt, first: first, exp: exp}, nil
	}}
}

type vmEnc struct {
	n     int
	data  []byte
	mt    encoding.MarshalType
	first int64
	exp   int16
	mant  []int64
}

func (e *vmEnc) Bits() float64 { return float64(8 * (len(e.data) + vmHeaderBytes)) }

func (e *vmEnc) Decode(dst []float64) ([]float64, error) {
	var err error
	e.mant, err = encoding.UnmarshalValues(e.mant[:0], e.data, e.mt, e.first, e.n)
	if err != nil {
		return dst, err
	}
	return decimal.AppendDecimalToFloat(dst, e.mant, e.exp), nil
}
