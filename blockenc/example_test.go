package blockenc_test

import (
	"fmt"

	"github.com/kvenc/kvenc/blockenc"
)

func Example() {
	e := blockenc.NewEncoder(blockenc.DefaultOptions())
	for _, c := range []blockenc.Cell{
		{Key: []byte("apple"), Value: []byte("red"), Seq: 9, Kind: blockenc.KindPut},
		{Key: []byte("apple"), Seq: 7, Kind: blockenc.KindDelete},
		{Key: []byte("banana"), Value: []byte("yellow"), Seq: 1000, Kind: blockenc.KindPut},
	} {
		if err := e.Add(c); err != nil {
			fmt.Println(err)
			return
		}
	}
	block, err := e.Finish()
	if err != nil {
		fmt.Println(err)
		return
	}

	s, err := blockenc.NewSeeker(block)
	if err != nil {
		fmt.Println(err)
		return
	}
	for ok := s.SeekGE([]byte("apricot")); ok; ok = s.Next() {
		c := s.Cell() // valid until the next move
		fmt.Printf("%s seq %d %v %q\n", c.Key, c.Seq, c.Kind, c.Value)
	}
	if s.SeekGE([]byte("apple")) {
		fmt.Printf("newest apple: seq %d %v\n", s.Cell().Seq, s.Cell().Kind)
	}
	fmt.Println(s.Err())
	// Output:
	// banana seq 1000 Put "yellow"
	// newest apple: seq 9 Put
	// <nil>
}
