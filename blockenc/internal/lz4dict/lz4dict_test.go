package lz4dict

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pierrec/lz4/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpus returns inputs of several shapes from a fixed seed: random bytes,
// repetitive text, sorted keys with shared prefixes, runs, and tiny inputs.
func corpus() map[string][]byte {
	r := rand.New(rand.NewPCG(9, 9))
	out := map[string][]byte{"empty": nil}
	for _, n := range []int{1, 4, 5, 11, 12, 13, 16, 17, 100} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + r.IntN(2))
		}
		out[fmt.Sprintf("tiny%d", n)] = b
	}
	random := make([]byte, 40000)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	out["random"] = random
	var keys []byte
	for i := 0; i < 3000; i++ {
		keys = fmt.Appendf(keys, "user/%08d/metric/%04d=%d;", i/7, i%7, r.IntN(1000))
	}
	out["keys"] = keys
	out["zeros"] = make([]byte, 70000)
	var text []byte
	words := []string{"the ", "quick ", "brown ", "fox ", "jumps ", "over ", "lazy ", "dog ", "furiously ", "final ", "deposits "}
	for len(text) < 100000 {
		text = append(text, words[r.IntN(len(words))]...)
	}
	out["text"] = text
	return out
}

func roundTrip(t *testing.T, c *Compressor, src, dict []byte) []byte {
	t.Helper()
	return checkAppended(t, c.CompressBlock([]byte("prefix"), src, dict), src, dict, "CompressBlock")
}

// checkAppended checks out, what compressing src against dict appended to
// "prefix" (by the function called what): the prefix kept, the output
// within CompressBound and the LZ4 rules (checkSpec), and pierrec decoding
// it to src; it returns the output without the prefix.
func checkAppended(t *testing.T, out, src, dict []byte, what string) []byte {
	t.Helper()
	require.Equal(t, "prefix", string(out[:6]), "%s did not append to dst", what)
	enc := out[6:]
	require.LessOrEqual(t, len(enc), CompressBound(len(src)), "output > CompressBound(%d)", len(src))
	checkSpec(t, enc, len(src))
	got := make([]byte, len(src)+8)
	var n int
	var err error
	if len(dict) > 0 {
		n, err = lz4.UncompressBlockWithDict(enc, got, dict)
	} else {
		n, err = lz4.UncompressBlock(enc, got)
	}
	require.NoError(t, err, "pierrec decode (src %d bytes, dict %d)", len(src), len(dict))
	require.Equal(t, len(src), n, "pierrec decode: n (src %d bytes, dict %d)", len(src), len(dict))
	require.Equal(t, string(src), string(got[:n]), "pierrec decode (src %d bytes, dict %d)", len(src), len(dict)) // string: an empty src may be nil
	return enc
}

// checkSpec walks the sequences independently of pierrec and checks the LZ4
// end-of-block rules and offset bounds.
func checkSpec(t *testing.T, enc []byte, n int) {
	t.Helper()
	length := func(p *int, v int) int {
		for {
			b := int(enc[*p])
			*p++
			v += b
			if b != 255 {
				return v
			}
		}
	}
	p, out := 0, 0
	for {
		tok := enc[p]
		p++
		lit := int(tok >> 4)
		if lit == 15 {
			lit = length(&p, lit)
		}
		p += lit
		out += lit
		if p == len(enc) {
			if tok&15 != 0 { // cheap check per sequence; require only on failure
				require.Zero(t, tok&15, "last sequence has a match part")
			}
			break
		}
		off := int(binary.LittleEndian.Uint16(enc[p:]))
		p += 2
		m := int(tok&15) + minMatch
		if tok&15 == 15 {
			m = length(&p, m)
		}
		// Cheap checks per sequence (many per block); require only on failure.
		if off == 0 || out > n-mfLimit {
			require.NotZero(t, off, "offset 0 at output %d", out)
			require.LessOrEqual(t, out, n-mfLimit, "match starts at %d, less than %d bytes before the end %d", out, mfLimit, n)
		}
		out += m
		if out > n-lastLiterals {
			require.LessOrEqual(t, out, n-lastLiterals, "match ends at %d, inside the last %d bytes of %d", out, lastLiterals, n)
		}

	}
	require.Equal(t, n, out, "bytes the sequences produce")
}

func TestRoundTripNoDict(t *testing.T) {
	var c Compressor
	for name, src := range corpus() {
		t.Run(name, func(t *testing.T) { roundTrip(t, &c, src, nil) })
	}
}

func TestRoundTripDict(t *testing.T) {
	var c Compressor
	for name, src := range corpus() {
		if len(src) < 40 {
			continue
		}
		// Lucene's split: the first 1/20 is the dictionary for the rest,
		// which is cut into sub-blocks each compressed against it.
		d := len(src) / 20
		dict, rest := src[:d], src[d:]
		sub := len(rest)/10 + 1
		var withDict, without int
		for off := 0; off < len(rest); off += sub {
			part := rest[off:min(off+sub, len(rest))]
			withDict += len(roundTrip(t, &c, part, dict))
			without += len(roundTrip(t, &c, part, nil))
		}
		if name == "keys" || name == "text" {
			// Real, repetitive data: the dictionary must help.
			assert.Less(t, withDict, without, "%s: bytes with dict vs without", name)
		}
	}
}

func TestLargeDictAndMatchesAcrossTheBoundary(t *testing.T) {
	var c Compressor
	r := rand.New(rand.NewPCG(1, 1))
	dict := make([]byte, 100000) // longer than MaxDictLen: only the tail is used
	for i := range dict {
		dict[i] = byte(r.Uint32())
	}
	// src repeats the last 300 bytes of the dictionary, then bytes from
	// beyond the reachable window, then its own start again.
	src := append([]byte(nil), dict[len(dict)-300:]...)
	src = append(src, dict[1000:1300]...)
	src = append(src, src[:200]...)
	src = append(src, "end of the input."...)
	enc := roundTrip(t, &c, src, dict)
	assert.LessOrEqual(t, len(enc), len(src)/2+350, "bytes for %d: matches into the dictionary were not found", len(src))
}

func TestCompressionComparableToPierrec(t *testing.T) {
	var c Compressor
	var pc lz4.Compressor
	for name, src := range corpus() {
		if len(src) < 1000 {
			continue
		}
		ours := len(c.CompressBlock(nil, src, nil))
		buf := make([]byte, lz4.CompressBlockBound(len(src)))
		theirs, err := pc.CompressBlock(src, buf)
		require.NoError(t, err)
		if theirs == 0 {
			theirs = len(src) // pierrec: incompressible
		}
		t.Logf("%s: %d bytes -> ours %d, pierrec %d", name, len(src), ours, theirs)
		assert.LessOrEqual(t, float64(ours), float64(theirs)*1.10+16, "%s: ours %d bytes, pierrec %d", name, ours, theirs)
	}
}

func TestReuseGivesIdenticalOutput(t *testing.T) {
	var c Compressor
	src := corpus()["keys"]
	a := c.CompressBlock(nil, src, src[:1000])
	c.CompressBlock(nil, corpus()["random"], nil)
	b := c.CompressBlock(nil, src, src[:1000])
	require.Equal(t, a, b, "output depends on earlier calls")
}
