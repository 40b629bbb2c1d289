package floatbench

import (
	"fmt"
	"strings"

	"github.com/kvenc/kvenc/blockenc/shapeshift"
)

// KvencName is the name of kvenc's codec in the tables.
const KvencName = "kvenc"

// KvencCodec is kvenc's float column codec: shapeshift.EncodeFloat64 with
// its default options; Decode is DecodeFloat64.
func KvencCodec() Codec {
	return Codec{Name: KvencName, Encode: func(values []float64) (Encoded, error) {
		return kvencEnc(shapeshift.EncodeFloat64(nil, values, shapeshift.DefaultOptions())), nil
	}}
}

type kvencEnc []byte

func (e kvencEnc) Bits() float64 { return float64(8 * len(e)) }

func (e kvencEnc) Decode(dst []float64) ([]float64, error) { return shapeshift.DecodeFloat64(dst, e) }

// Forms lists the column's chunk forms with their counts, then those of
// the integer chunks inside them ("Decimal:1 (Huffman:1)").
func (e kvencEnc) Forms() (string, error) {
	c, err := shapeshift.OpenFloat64(e)
	if err != nil {
		return "", err
	}
	return formList(c.Composition()) + " (" + formList(c.IntComposition()) + ")", nil
}

func formList(comp map[shapeshift.Form]int) string {
	var parts []string
	for f := shapeshift.Form(0); f.IsValid(); f++ {
		if n := comp[f]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s:%d", f, n))
		}
	}
	return strings.Join(parts, " ")
}
