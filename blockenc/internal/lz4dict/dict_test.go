package lz4dict

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// roundTripDict compresses src against d with CompressBlockDict and
// checks it as roundTrip does (checkAppended), pierrec decoding with
// d.Bytes().
func roundTripDict(t *testing.T, c *Compressor, src []byte, d *Dict) []byte {
	t.Helper()
	return checkAppended(t, c.CompressBlockDict([]byte("prefix"), src, d), src, d.Bytes(), "CompressBlockDict")
}

// seq is one LZ4 sequence: literals, then a match (m == 0: none).
type seq struct{ lit, off, m int }

// sequences splits an LZ4 block (checked by checkSpec) into sequences.
func sequences(enc []byte) []seq {
	length := func(p *int, v int) int {
		for {
			b := int(enc[*p])
			*p++
			if v += b; b != 255 {
				return v
			}
		}
	}
	var out []seq
	for p := 0; p < len(enc); {
		tok := enc[p]
		p++
		s := seq{lit: int(tok >> 4)}
		if s.lit == 15 {
			s.lit = length(&p, s.lit)
		}
		if p += s.lit; p < len(enc) {
			s.off = int(binary.LittleEndian.Uint16(enc[p:]))
			p += 2
			s.m = int(tok&15) + minMatch
			if tok&15 == 15 {
				s.m = length(&p, s.m)
			}
		}
		out = append(out, s)
	}
	return out
}

// randBytes returns a function returning n random bytes from r.
func randBytes(r *rand.Rand) func(n int) []byte {
	return func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
}

// TestDictRoundTrip: every corpus input against dictionaries of several
// sizes (one over MaxDictLen: its tail is kept) at every kind of level
// decodes with pierrec, and on text and keys is about as small as
// CompressBlock with the same bytes.
func TestDictRoundTrip(t *testing.T) {
	data := corpus()
	dicts := map[string][]byte{
		"one":    {'a'},
		"keys":   data["keys"][:5000],
		"text":   data["text"][len(data["text"])-MaxDictLen:],
		"random": data["random"][:30000],
		"long":   data["text"],
	}
	for dname, db := range dicts {
		d := NewDict(db)
		require.Equal(t, db[max(0, len(db)-MaxDictLen):], d.Bytes(), "dictionary bytes")
		for _, level := range []int{LevelFast, 1, 4, LevelHC, LevelOpt} {
			c := Compressor{Level: level}
			for name, src := range data {
				if len(src) > 20000 {
					src = src[len(src)/2 : len(src)/2+20000]
				}
				t.Run(fmt.Sprintf("dict=%s/level=%d/src=%s", dname, level, name), func(t *testing.T) {
					enc := roundTripDict(t, &c, src, d)
					if (name == "text" || name == "keys") && dname != "random" {
						plain := c.CompressBlock(nil, src, d.Bytes())
						assert.LessOrEqual(t, len(enc), len(plain)*105/100, "prepared %d bytes, CompressBlock %d", len(enc), len(plain))
					}
				})
			}
		}
	}
}

// TestDictMatchRunsOn: a match that starts in the dictionary runs on past
// its end into the input, at the farthest offset too.
func TestDictMatchRunsOn(t *testing.T) {
	rnd := randBytes(rand.New(rand.NewPCG(8, 8)))
	x, tail := rnd(30), rnd(16)
	for _, dl := range []int{1000, MaxDictLen} {
		dict := append(rnd(dl-16), tail...)
		// At 30, tail and x again: the match starts 16 bytes before the
		// dictionary's end and runs on through the input's first 30.
		src := append(append(append(bytes.Clone(x), tail...), x...), rnd(20)...)
		d := NewDict(dict)
		for _, level := range []int{LevelFast, 4, LevelHC} {
			c := Compressor{Level: level}
			enc := roundTripDict(t, &c, src, d)
			require.Equal(t, seq{lit: 30, off: 30 + 16, m: 16 + 30}, sequences(enc)[0], "dict %d, level %d", dl, level)
		}
	}
}

// TestDictOffsetLimit: bytes found only at the dictionary's start are
// matched at offset 65535, and not from farther.
func TestDictOffsetLimit(t *testing.T) {
	rnd := randBytes(rand.New(rand.NewPCG(4, 4)))
	dict := rnd(MaxDictLen)
	d := NewDict(dict)
	reach := append(bytes.Clone(dict[:32]), rnd(16)...)
	far := append(append(rnd(10), dict[:32]...), rnd(16)...) // offset 65545
	for _, level := range []int{LevelFast, 4, LevelHC} {
		c := Compressor{Level: level}
		require.Equal(t, seq{lit: 0, off: MaxDictLen, m: 32}, sequences(roundTripDict(t, &c, reach, d))[0], "level %d: offset 65535", level)
		require.Equal(t, []seq{{lit: len(far)}}, sequences(roundTripDict(t, &c, far, d)), "level %d: offset 65545", level)
	}
}

// TestDictConcurrent: Compressors sharing one Dict, whose tables are built
// on first use, give the output one Compressor gives alone (run with
// -race).
func TestDictConcurrent(t *testing.T) {
	data := corpus()
	src := data["text"][:8000]
	want := map[int][]byte{}
	for _, level := range []int{LevelFast, 4, LevelOpt} {
		c := Compressor{Level: level}
		want[level] = c.CompressBlockDict(nil, src, NewDict(data["text"][20000:40000]))
	}
	d := NewDict(data["text"][20000:40000])
	var wg sync.WaitGroup
	got := make([][]byte, 6)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := Compressor{Level: []int{LevelFast, 4, LevelOpt}[i%3]}
			got[i] = c.CompressBlockDict(nil, src, d)
		}()
	}
	wg.Wait()
	for i, g := range got {
		assert.Equal(t, want[[]int{LevelFast, 4, LevelOpt}[i%3]], g, "compressor %d", i)
	}
}

// TestLightFindsRepeats: an input short beside its Dict (searched without
// hash chains) still finds its own repeats the dictionary lacks, and a
// sub-block of lineitem values compresses as well as with chains, within
// 1%.
func TestLightFindsRepeats(t *testing.T) {
	rnd := randBytes(rand.New(rand.NewPCG(21, 21)))
	d := NewDict(rnd(MaxDictLen))
	for _, level := range []int{1, 5, LevelHC} {
		c := Compressor{Level: level}
		src := bytes.Repeat(rnd(50), 20) // 1000 bytes, 50 of them new
		enc := roundTripDict(t, &c, src, d)
		assert.Less(t, len(enc), 100, "level %d: %d bytes", level, len(enc))
		require.True(t, c.matcher(src, hcDepth(level), d).light, "level %d: searched with chains", level)
	}
	values := NewDict(lineitemValues(1, MaxDictLen))
	src := lineitemValues(2, 16<<10)
	c := Compressor{Level: LevelHC}
	var light, chains int
	for off := 0; off < len(src); off += 1 << 10 {
		sub := src[off : off+1<<10]
		light += len(roundTripDict(t, &c, sub, values))
		m := c.matcher(sub, hcDepth(LevelHC), values)
		m.light = false
		chains += len(parseHC(nil, &m, 0, lazyDictLen(LevelHC)))
	}
	assert.LessOrEqual(t, light, chains*101/100, "without chains %d bytes, with %d", light, chains)
}
