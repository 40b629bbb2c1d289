package intsbench

import (
	"github.com/kvenc/kvenc/blockenc/shapeshift"
)

// ShapeshiftPrefix starts the name of every shapeshift codec.
const ShapeshiftPrefix = "shapeshift-"

func shapeshiftCodecs() []Codec {
	var out []Codec
	for _, t := range []shapeshift.Target{shapeshift.Smaller, shapeshift.Balanced, shapeshift.Faster} {
		out = append(out, Codec{
			Name: ShapeshiftPrefix + t.String(),
			Encode: func(values []int64) (Encoded, error) {
				src := shapeshift.Encode(nil, values, shapeshift.Options{Target: t})
				col, err := shapeshift.Open(src)
				if err != nil {
					return nil, err
				}
				return &shapeshiftCol{src: src, col: col}, nil
			},
		})
	}
	return out
}

type shapeshiftCol struct {
	src []byte
	col *shapeshift.Column
}

func (s *shapeshiftCol) Size() int { return len(s.src) }

func (s *shapeshiftCol) Decode(dst []int64) ([]int64, error) { return shapeshift.Decode(dst, s.src) }

func (s *shapeshiftCol) SumAt(rows []int) (int64, bool) {
	var sum int64
	for _, i := range rows {
		sum += s.col.Get(i)
	}
	return sum, true
}

// Composition returns the chunks per form of a shapeshift column, or nil
// for any other codec's column.
func Composition(e Encoded) map[shapeshift.Form]int {
	if s, ok := e.(*shapeshiftCol); ok {
		return s.col.Composition()
	}
	return nil
}
