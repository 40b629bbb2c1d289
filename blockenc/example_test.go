package blockenc_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

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

// ExampleOptions_features encodes 2000 time series samples with a value
// column, dedupe and LZ4Dict allowed; flags byte 2 says which the block
// uses: 0x1a is LZ4Dict (bit 1), a value column (bit 3) and a seq column
// (bit 4), which made dedupe moot.
func ExampleOptions_features() {
	opts := blockenc.Options{
		Encoding:     blockenc.RowIndex,
		Compression:  blockenc.LZ4Dict,
		DedupeValues: true,
		IntValues:    true,
	}
	e := blockenc.NewEncoder(opts)
	for i := range 2000 {
		key := fmt.Appendf(nil, "cpu/host%02d/%06d", i/200, i%200)
		val := []byte{0, 0, byte(i >> 8), byte(i)} // 4-byte big-endian counter
		if err := e.Add(blockenc.Cell{Key: key, Value: val, Seq: uint64(i), Kind: blockenc.KindPut}); err != nil {
			fmt.Println(err)
			return
		}
	}
	block, _ := e.Finish()
	// Size bounds the block: its size without compression or value column.
	fmt.Printf("%d cells, Size %d, block %d bytes, flags %#x\n", e.Len(), e.Size(), len(block), block[2])

	s, err := blockenc.NewSeeker(block) // decompresses nothing yet
	if err != nil {
		fmt.Println(err)
		return
	}
	if s.SeekGE([]byte("cpu/host07/000150")) { // the dictionary and one sub-block
		c := s.Cell()
		fmt.Printf("%s = %x\n", c.Key, c.Value)
	}
	// Output:
	// 2000 cells, Size 26426, block 2104 bytes, flags 0x1a
	// cpu/host07/000150 = 0000060e
}

// Columnar blocks store a column's cells column by column. Here the values
// are ISO dates, which Columnar packs into the bits that vary (format
// version 2), the keys (order number and line) likewise; an LZ4Dict value
// area and CompressionLevel apply to values kept as bytes.
func ExampleOptions_columnar() {
	opts := blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4Dict, CompressionLevel: 6}
	e := blockenc.NewEncoder(opts)
	day := time.Date(1995, 3, 13, 0, 0, 0, 0, time.UTC)
	for i := range 1000 {
		key := binary.BigEndian.AppendUint32([]byte("l_shipdate/"), uint32(i/4))
		key = append(key, byte(i%4+1)) // order number, line number
		date := day.AddDate(0, 0, i*7%400).Format("2006-01-02")
		if err := e.Add(blockenc.Cell{Key: key, Value: []byte(date), Seq: 1, Kind: blockenc.KindPut}); err != nil {
			fmt.Println(err)
			return
		}
	}
	block, _ := e.Finish()
	fmt.Printf("%d cells of %d raw bytes in %d bytes, format version %d\n", e.Len(), 1000*(16+10), len(block), block[0])

	s, err := blockenc.NewSeeker(block)
	if err != nil {
		fmt.Println(err)
		return
	}
	target := append(binary.BigEndian.AppendUint32([]byte("l_shipdate/"), 123), 3)
	if s.SeekGE(target) {
		fmt.Printf("order 123 line 3 shipped %s\n", s.Value())
	}
	// Output:
	// 1000 cells of 26000 raw bytes in 997 bytes, format version 2
	// order 123 line 3 shipped 1995-11-26
}

// The latest sample of a series, and the samples before it: SeekLT to the
// first key after the series' keys lands on its last cell, Prev walks
// back. Keys are series name, "/", big-endian timestamp; "/" + 1 is "0".
func ExampleSeeker_SeekLT() {
	e := blockenc.NewEncoder(blockenc.DefaultOptions())
	for _, series := range []string{"cpu", "disk", "mem"} {
		for ts := uint32(1000); ts <= 1040; ts += 10 {
			key := binary.BigEndian.AppendUint32([]byte(series+"/"), ts)
			val := fmt.Appendf(nil, "%s@%d", series, ts)
			if err := e.Add(blockenc.Cell{Key: key, Value: val, Seq: 1, Kind: blockenc.KindPut}); err != nil {
				fmt.Println(err)
				return
			}
		}
	}
	block, _ := e.Finish()
	s, err := blockenc.NewSeeker(block)
	if err != nil {
		fmt.Println(err)
		return
	}
	prefix := []byte("disk/")
	end := []byte("disk0") // the first key after every "disk/..." key
	n := 0
	for ok := s.SeekLT(end); ok && bytes.HasPrefix(s.Key(), prefix) && n < 3; ok = s.Prev() {
		fmt.Printf("%s\n", s.Value())
		n++
	}
	if s.Last() {
		fmt.Printf("last cell: %s\n", s.Value())
	}
	fmt.Println(s.Err())
	// Output:
	// disk@1040
	// disk@1030
	// disk@1020
	// last cell: mem@1040
	// <nil>
}

// ExampleNewDict writes a Columnar block whose values are compressed
// against a Dict sampled from earlier values (kept once, next to many
// blocks), and reads it back with the same Dict; without it the block is
// refused.
func ExampleNewDict() {
	dict, err := commentDict()
	if err != nil {
		fmt.Println(err)
		return
	}
	e := blockenc.NewEncoder(blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4Dict, Dict: dict})
	raw := 0
	for i := range 300 {
		c := blockenc.Cell{Key: binary.BigEndian.AppendUint32(nil, uint32(i)), Value: comment(i + 7), Seq: 1, Kind: blockenc.KindPut}
		raw += len(c.Value)
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
	fmt.Printf("version %d, flags %#02x, values %d bytes, block under %d%% of them\n", block[0], block[2], raw, (100*len(block)/raw+9)/10*10)

	s, err := blockenc.NewSeekerDict(block, dict)
	if err != nil {
		fmt.Println(err)
		return
	}
	if s.SeekGE(binary.BigEndian.AppendUint32(nil, 123)) {
		fmt.Printf("%q\n", s.Value())
	}
	_, err = blockenc.NewSeeker(block)
	fmt.Println(errors.Is(err, blockenc.ErrWrongDict), errors.Is(err, blockenc.ErrCorrupt))
	// Output:
	// version 4, flags 0x22, values 8083 bytes, block under 20% of them
	// "carefully deposits carefully|30"
	// true true
}

// ExampleSeeker_Decompress reads the next block of a scan on another
// goroutine while the scan reads the current one: Decompress there
// decompresses the whole value area, so the scan's moves decode nothing
// more.
func ExampleSeeker_Decompress() {
	dict, err := commentDict()
	if err != nil {
		fmt.Println(err)
		return
	}
	var blocks [][]byte
	for b := range 3 {
		block, err := commentBlock(dict, b*100, (b+1)*100)
		if err != nil {
			fmt.Println(err)
			return
		}
		blocks = append(blocks, block)
	}

	type ahead struct {
		s   *blockenc.Seeker
		err error
	}
	next := make(chan ahead, 1)
	readAhead := func(block []byte) {
		go func() {
			s, err := blockenc.NewSeekerDict(block, dict)
			if err == nil {
				s.Decompress()
			}
			next <- ahead{s, err}
		}()
	}
	readAhead(blocks[0])
	n := 0
	var last []byte
	for i := range blocks {
		a := <-next
		if a.err != nil {
			fmt.Println(a.err)
			return
		}
		if i+1 < len(blocks) {
			readAhead(blocks[i+1])
		}
		for ok := a.s.First(); ok; ok = a.s.Next() {
			n++
			last = append(last[:0], a.s.Value()...)
		}
		if err := a.s.Err(); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Printf("%d cells, the last %q\n", n, last)
	// Output:
	// 300 cells, the last "carefully deposits carefully|6"
}

// comment is the value of cell i in the Dict examples: lineitem-like
// comment words.
func comment(i int) []byte {
	words := []string{"furiously", "quickly", "carefully", "blithely", "slyly", "final", "deposits", "packages"}
	return fmt.Appendf(nil, "%s %s %s|%d", words[i%8], words[i*3%8], words[i*5%8], i%50)
}

// commentDict samples a 4 KiB Dict from 1000 comments.
func commentDict() (*blockenc.Dict, error) {
	var sample [][]byte
	for i := range 1000 {
		sample = append(sample, comment(i))
	}
	return blockenc.NewDict(blockenc.SampleDict(sample, 4096))
}

// commentBlock encodes cells lo..hi-1 (key i big-endian, value
// comment(i+7)) into a Columnar block compressed against dict.
func commentBlock(dict *blockenc.Dict, lo, hi int) ([]byte, error) {
	e := blockenc.NewEncoder(blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4Dict, Dict: dict})
	for i := lo; i < hi; i++ {
		if err := e.Add(blockenc.Cell{Key: binary.BigEndian.AppendUint32(nil, uint32(i)), Value: comment(i + 7), Seq: 1, Kind: blockenc.KindPut}); err != nil {
			return nil, err
		}
	}
	return e.Finish()
}
