package kvenccli

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/kvenc/kvenc/blockenc"
)

// Segment dictionaries as kv samples them: values spread over the
// segment, at most 1/dictShare of its value bytes, none below minDict.
const (
	dictSamples = 2048
	dictShare   = 16
	minDict     = 1 << 10
)

// segment is a sample's cells encoded as one kv segment would hold them.
type segment struct {
	blocks   [][]byte
	lastKeys [][]byte // the block index: each block's last key
	dict     *blockenc.Dict
}

// bytes returns the blocks' and the dictionary's bytes.
func (s *segment) bytes() int {
	n := 0
	for _, b := range s.blocks {
		n += len(b)
	}
	if s.dict != nil {
		n += len(s.dict.Bytes())
	}
	return n
}

// encodeSegment cuts cells into blocks as kv's segment writer does: a
// block ends at the first new key once the encoder's Size reaches the
// block size.
func encodeSegment(cells []blockenc.Cell, c candidate) (*segment, error) {
	seg := &segment{}
	opts := c.block
	if c.dictSize > 0 && opts.Compression == blockenc.LZ4Dict {
		d, err := sampleDict(cells, c.dictSize)
		if err != nil {
			return nil, err
		}
		seg.dict, opts.Dict = d, d
	}
	enc := blockenc.NewEncoder(opts)
	finish := func(last []byte) error {
		b, err := enc.Finish()
		if err != nil {
			return err
		}
		seg.blocks = append(seg.blocks, b)
		seg.lastKeys = append(seg.lastKeys, last)
		enc.Reset()
		return nil
	}
	for i, cell := range cells {
		if enc.Len() > 0 && enc.Size() >= c.blockSize && !bytes.Equal(cell.Key, cells[i-1].Key) {
			if err := finish(cells[i-1].Key); err != nil {
				return nil, err
			}
		}
		if err := enc.Add(cell); err != nil {
			return nil, fmt.Errorf("cell %d: %w", i, err)
		}
	}
	if enc.Len() > 0 {
		if err := finish(cells[len(cells)-1].Key); err != nil {
			return nil, err
		}
	}
	return seg, nil
}

// sampleDict makes the segment dictionary kv would make of cells' values
// for a DictSize of size, or nil when kv would make none.
func sampleDict(cells []blockenc.Cell, size int) (*blockenc.Dict, error) {
	step := max(1, len(cells)/dictSamples)
	var vals [][]byte
	var valueBytes int
	for i, c := range cells {
		valueBytes += len(c.Value)
		if i%step == 0 && c.Kind == blockenc.KindPut && len(c.Value) > 0 {
			vals = append(vals, c.Value)
		}
	}
	size = min(size, valueBytes/dictShare)
	if size < minDict {
		return nil, nil
	}
	d := blockenc.SampleDict(vals, size)
	if len(d) < minDict {
		return nil, nil
	}
	return blockenc.NewDict(d)
}

// result is what advise measured of one candidate.
type result struct {
	c        candidate
	blocks   int
	bytes    int
	perCell  float64 // bytes per cell (blocks and dictionary)
	seekNs   float64 // SeekGE on a block already read (cached)
	getNs    float64 // a point read of a block not cached: copy, Init, SeekGE, value
	nextNs   float64 // Next per cell over blocks already read
	scanNs   float64 // per cell: copy, Init and Next over every block
	encodeNs float64 // encoding the blocks (and sampling the dictionary), per cell
}

// measureOpts bound the timing.
type measureOpts struct {
	gets   int // point reads per round
	rounds int // rounds per measure; the fastest is kept
}

// measure encodes cells with c and times reads of the blocks.
func measure(cells []blockenc.Cell, c candidate, mo measureOpts) (result, error) {
	start := time.Now()
	seg, err := encodeSegment(cells, c)
	if err != nil {
		return result{}, fmt.Errorf("%s: %w", c.name(), err)
	}
	r := result{c: c, blocks: len(seg.blocks), bytes: seg.bytes()}
	r.encodeNs = float64(time.Since(start).Nanoseconds()) / float64(len(cells))
	r.perCell = float64(r.bytes) / float64(len(cells))

	// The same keys for every candidate: a fixed seed.
	rng := rand.New(rand.NewPCG(1, 2))
	keys := make([][]byte, mo.gets)
	for i := range keys {
		keys[i] = cells[rng.IntN(len(cells))].Key
	}
	blockOf := make([]int, len(keys))
	for i, k := range keys {
		blockOf[i] = sort.Search(len(seg.lastKeys), func(j int) bool { return bytes.Compare(seg.lastKeys[j], k) >= 0 })
	}

	// Cold: each block copied (as kv copies a block read from Badger into
	// a pooled buffer) and read by a Seeker initialized anew.
	var sk blockenc.Seeker
	buf := make([]byte, 0, 256<<10)
	load := func(b int) error {
		buf = append(buf[:0], seg.blocks[b]...)
		return sk.InitDict(buf, seg.dict)
	}
	var sink int
	get := func() (time.Duration, error) {
		t := time.Now()
		for i, k := range keys {
			if err := load(blockOf[i]); err != nil {
				return 0, err
			}
			if !sk.SeekGE(k) || !bytes.Equal(sk.Key(), k) {
				return 0, fmt.Errorf("get: key %x not found in block %d: %v", k, blockOf[i], sk.Err())
			}
			sink += len(sk.Value())
		}
		return time.Since(t), nil
	}
	scan := func() (time.Duration, error) {
		t := time.Now()
		n := 0
		for b := range seg.blocks {
			if err := load(b); err != nil {
				return 0, err
			}
			for sk.Next() {
				sink += len(sk.Value())
				n++
			}
			if err := sk.Err(); err != nil {
				return 0, err
			}
		}
		if n != len(cells) {
			return 0, fmt.Errorf("scan read %d cells of %d", n, len(cells))
		}
		return time.Since(t), nil
	}

	// Warm: a Seeker per block, its block read once (a block cache).
	warm := make([]blockenc.Seeker, len(seg.blocks))
	for b := range warm {
		if err := warm[b].InitDict(seg.blocks[b], seg.dict); err != nil {
			return r, err
		}
		for warm[b].Next() { // decompress what the moves would
		}
	}
	seek := func() (time.Duration, error) {
		t := time.Now()
		for i, k := range keys {
			s := &warm[blockOf[i]]
			if !s.SeekGE(k) {
				return 0, fmt.Errorf("seek: key %x not found: %v", k, s.Err())
			}
			sink += len(s.Value())
		}
		return time.Since(t), nil
	}
	next := func() (time.Duration, error) {
		t := time.Now()
		for b := range warm {
			s := &warm[b]
			for ok := s.First(); ok; ok = s.Next() {
				sink += len(s.Value())
			}
			if err := s.Err(); err != nil {
				return 0, err
			}
		}
		return time.Since(t), nil
	}
	perGet := float64(len(keys))
	perCell := float64(len(cells))
	for _, m := range []struct {
		f   func() (time.Duration, error)
		per float64
		out *float64
	}{{get, perGet, &r.getNs}, {scan, perCell, &r.scanNs}, {seek, perGet, &r.seekNs}, {next, perCell, &r.nextNs}} {
		d, err := fastest(mo.rounds, m.f)
		if err != nil {
			return r, fmt.Errorf("%s: %w", c.name(), err)
		}
		*m.out = float64(d.Nanoseconds()) / m.per
	}
	sinkAll += sink
	return r, nil
}

// sinkAll keeps the reads from being optimized away.
var sinkAll int

// fastest runs f n times and returns the shortest duration: on a shared
// machine other processes only ever add time, so the fastest round is the
// one least disturbed.
func fastest(n int, f func() (time.Duration, error)) (time.Duration, error) {
	var best time.Duration
	for i := range n {
		d, err := f()
		if err != nil {
			return 0, err
		}
		if i == 0 || d < best {
			best = d
		}
	}
	return best, nil
}
