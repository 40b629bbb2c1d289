package memstore_test

import (
	"errors"
	"fmt"
	"math"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/memstore"
)

func Example() {
	m := memstore.New(1 << 20)
	for _, c := range []blockenc.Cell{
		{Key: []byte("apple"), Value: []byte("red"), Seq: 1, Kind: blockenc.KindPut},
		{Key: []byte("apple"), Value: []byte("green"), Seq: 3, Kind: blockenc.KindPut},
		{Key: []byte("banana"), Value: []byte("yellow"), Seq: 2, Kind: blockenc.KindPut},
		{Key: []byte("banana"), Seq: 4, Kind: blockenc.KindDelete},
	} {
		if err := m.Add(c); err != nil {
			fmt.Println(err)
		}
	}

	c, ok := m.Get([]byte("apple"), 2) // newest version with Seq <= 2
	fmt.Println("apple at 2:", string(c.Value), c.Seq, ok)

	fmt.Println("at read point 3:")
	it := m.NewIterator(3, false)
	for it.First(); it.Valid(); it.Next() {
		c := it.Cell()
		fmt.Printf("  %s@%d %v %q\n", c.Key, c.Seq, c.Kind, c.Value)
	}

	fmt.Println("every version (flush):")
	it = m.NewIterator(math.MaxUint64, true)
	for it.First(); it.Valid(); it.Next() {
		c := it.Cell()
		fmt.Printf("  %s@%d %v %q\n", c.Key, c.Seq, c.Kind, c.Value)
	}
	// Output:
	// apple at 2: red 1 true
	// at read point 3:
	//   apple@3 Put "green"
	//   banana@2 Put "yellow"
	// every version (flush):
	//   apple@3 Put "green"
	//   apple@1 Put "red"
	//   banana@4 Delete ""
	//   banana@2 Put "yellow"
}

// A full memstore refuses cells with ErrFull instead of overflowing its
// arena; the caller flushes it and continues in a fresh one.
func ExampleMemstore_Add_full() {
	m := memstore.New(1 << 10)
	n := 0
	for {
		err := m.Add(blockenc.Cell{Key: fmt.Appendf(nil, "key%03d", n), Value: []byte("v"), Seq: 1, Kind: blockenc.KindPut})
		if errors.Is(err, memstore.ErrFull) {
			break
		}
		n++
	}
	fmt.Println("cells in 1 KiB:", n > 0, "size within capacity:", m.Size() <= m.Capacity())

	err := m.Add(blockenc.Cell{Key: []byte("huge"), Value: make([]byte, 4096), Kind: blockenc.KindPut})
	fmt.Println(errors.Is(err, memstore.ErrFull), errors.Is(err, memstore.ErrCellTooLarge))
	// Output:
	// cells in 1 KiB: true size within capacity: true
	// true true
}
