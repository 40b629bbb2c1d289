package shapeshift_test

import (
	"errors"
	"fmt"

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
