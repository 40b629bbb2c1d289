package shapeshift_test

import (
	"errors"
	"fmt"
	"math"

	"github.com/kvenc/kvenc/blockenc/shapeshift"
)

func Example() {
	// A day of per-10-second timestamps, then a sparse error counter.
	var values []int64
	for i := range 8640 {
		values = append(values, 1_700_000_000+10*int64(i))
	}
	for i := range 8640 {
		v := int64(0)
		if i%1000 == 999 {
			v = int64(i)
		}
		values = append(values, v)
	}

	enc := shapeshift.Encode(nil, values, shapeshift.Options{LogChunkSize: 12})
	fmt.Printf("%d values in %d bytes\n", len(values), len(enc))

	col, err := shapeshift.Open(enc)
	if err != nil {
		panic(err)
	}
	fmt.Println(col.Len(), col.Get(0), col.Get(8639), col.Get(8640+1999))
	fmt.Println(col.Composition())

	all, err := shapeshift.Decode(nil, enc)
	fmt.Println(len(all), all[8640+999], err)

	enc[20] ^= 1
	_, err = shapeshift.Open(enc)
	fmt.Println(errors.Is(err, shapeshift.ErrCorrupt))
	// Output:
	// 17280 values in 2034 bytes
	// 17280 1700000000 1700086390 1999
	// map[Delta:2 Patched:2 LZ4:1]
	// 17280 999 <nil>
	// true
}

func ExampleEncodeFloat64() {
	// Temperatures with two decimals, one missing reading (NaN) and a -0.
	values := []float64{21.37, 21.4, 21.42, math.NaN(), 21.45, 21.5, math.Copysign(0, -1)}
	for i := range 1000 {
		values = append(values, 20+float64(i%300)/100)
	}
	enc := shapeshift.EncodeFloat64(nil, values, shapeshift.Options{})
	fmt.Printf("%d values in %d bytes (%.1f bits each)\n", len(values), len(enc), float64(8*len(enc))/float64(len(values)))

	col, err := shapeshift.OpenFloat64(enc)
	if err != nil {
		panic(err)
	}
	fmt.Println(col.Len(), col.Get(0), col.Get(3), math.Signbit(col.Get(6)), col.Get(1006))
	fmt.Println(col.Composition())

	all, err := shapeshift.DecodeFloat64(nil, enc)
	fmt.Println(len(all), all[1], err)
	// Output:
	// 1007 values in 457 bytes (3.6 bits each)
	// 1007 21.37 NaN true 20.99
	// map[Decimal:1]
	// 1007 21.4 <nil>
}
