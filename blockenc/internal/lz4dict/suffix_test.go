package lz4dict

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// suffixDicts are dictionaries of several shapes for the suffix index
// tests: text-like, long repeats, random, and every length up to 12.
func suffixDicts() map[string][]byte {
	rnd := randBytes(rand.New(rand.NewPCG(11, 11)))
	d := map[string][]byte{
		"lineitem": lineitemValues(1, MaxDictLen),
		"keys":     corpus()["keys"][:5000],
		"zeros":    make([]byte, 3000),
		"abab":     bytes.Repeat([]byte("ab"), 1500),
		"random":   rnd(5000),
	}
	r := rand.New(rand.NewPCG(12, 12))
	for n := 0; n <= 12; n++ {
		b := make([]byte, n)
		for i := range b {
			b[i] = "ab"[r.IntN(2)]
		}
		d[fmt.Sprintf("len%d", n)] = b
	}
	return d
}

// TestSuffixIndex: the suffix array holds every position with
// suffixKeyEnd bytes after it once, in the order of the bytes from there,
// with its key; every suffix's group is the run of the suffixes that share
// its first 4 bytes.
func TestSuffixIndex(t *testing.T) {
	for name, b := range suffixDicts() {
		t.Run(name, func(t *testing.T) {
			x := newSuffixIndex(b)
			n := max(0, len(b)-suffixKeyEnd+1)
			require.Len(t, x.sa, n, "suffixes")
			require.Len(t, x.keys, n, "keys")
			seen := make([]bool, len(b))
			for i, p := range x.sa {
				require.False(t, seen[p], "position %d twice", p)
				seen[p] = true
				require.Equal(t, binary.BigEndian.Uint32(b[p+minMatch:]), x.keys[i], "key of position %d", p)
				if i > 0 {
					require.Negative(t, bytes.Compare(b[x.sa[i-1]:], b[p:]), "order of positions %d and %d", x.sa[i-1], p)
				}
			}
			for i, p := range x.sa {
				prefix := binary.LittleEndian.Uint32(b[p:])
				lo, hi := x.group(prefix)
				require.True(t, lo <= i && i < hi, "group [%d, %d) of suffix %d", lo, hi, i)
				for _, j := range []int{lo - 1, hi} {
					if j >= 0 && j < n {
						require.NotEqual(t, prefix, binary.LittleEndian.Uint32(b[x.sa[j]:]), "suffix %d next to group [%d, %d)", j, lo, hi)
					}
				}
				assert.Equal(t, prefix, binary.LittleEndian.Uint32(b[x.sa[hi-1]:]), "last of group [%d, %d)", lo, hi)
			}
			lo, hi := x.group(binary.LittleEndian.Uint32([]byte("\xff\xfe\xfd\xfc")))
			assert.Equal(t, lo, hi, "group of 4 bytes not in the dictionary")
		})
	}
}

// TestFindDictLongest: findDict returns a real match, as long as the
// longest one in the dictionary that starts where the index holds
// suffixes and is in reach (compared with every such position), and no
// longer than the longest one running on into the input.
func TestFindDictLongest(t *testing.T) {
	rnd := randBytes(rand.New(rand.NewPCG(13, 13)))
	text := lineitemValues(5, 8000)
	// Inputs: other values, then pieces of the dictionary (one its end,
	// which runs on into the input's start) and of the input itself.
	src := append(bytes.Clone(text[len(text)-40:]), lineitemValues(6, 600)...)
	src = append(src, text[1000:1200]...)
	src = append(src, rnd(30)...)
	src = append(src, src[300:400]...)
	// A dictionary of MaxDictLen whose first bytes are out of reach for
	// the input's later positions: random bytes, and then the text (only
	// the input's last 100 positions are searched in it).
	long := append(rnd(MaxDictLen-len(text)), text...)
	// Bytes 0 and 1 ending in zeros, and an input of its pieces (its end
	// first, running on): suffixes whose bytes 8..15 run past the
	// dictionary's end (zeros beside them in the index), compared with
	// inputs that have zeros there, and others.
	r := rand.New(rand.NewPCG(14, 14))
	bin := make([]byte, 3000)
	for i := range bin {
		bin[i] = byte(r.IntN(2))
	}
	copy(bin[len(bin)-6:], make([]byte, 6))
	binSrc := append(bytes.Clone(bin[len(bin)-14:]), 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	binSrc = append(binSrc, bin[len(bin)-11:]...)
	binSrc = append(binSrc, 1, 1, 0)
	binSrc = append(binSrc, bin[500:700]...)
	for _, tc := range []struct {
		name      string
		dict, src []byte
		from      int // the first position searched
	}{{"text", text, src, 0}, {"long", long, src, len(src) - 100}, {"binary", bin, binSrc, 0}} {
		name, dict, src, from := tc.name, tc.dict, tc.src, tc.from
		d := NewDict(dict)
		dl := len(dict)
		var c Compressor
		m := c.matcher(src, 1, d)
		found := 0
		for p := from; p+mfLimit <= len(src); p += 1 + p%3 { // about every other position
			// 5..7 and 12: the searches the filters decide (6 bytes
			// needed, 7, 8, 13).
			for _, best := range []int{minMatch - 1, 5, 6, 7, 8, 12} {
				if best >= m.limit-p {
					continue
				}
				l, pos := m.findDict(p, best)
				lowest := max(0, dl+p-maxOffset)
				want, wantOn := best, best // longest within the dictionary; running on
				for s := lowest; s+suffixKeyEnd <= dl; s++ {
					on := dictMatchLen(dict, s, src, p, m.limit)
					wantOn = max(wantOn, on)
					want = max(want, min(on, dl-s))
				}
				if pos == noMatch {
					require.Equal(t, best, want, "%s: position %d, best %d: no match found", name, p, best)
					continue
				}
				found++
				s := dl + pos
				require.GreaterOrEqual(t, s, lowest, "%s: position %d: match at %d out of reach", name, p, s)
				require.Equal(t, l, dictMatchLen(dict, s, src, p, m.limit), "%s: position %d: length of the match at %d", name, p, s)
				require.GreaterOrEqual(t, l, want, "%s: position %d, best %d", name, p, best)
				require.LessOrEqual(t, l, wantOn, "%s: position %d, best %d", name, p, best)
			}
		}
		assert.Greater(t, found, (len(src)-from)/3, "%s: matches found", name)
	}
}

// TestFiltersOnlyPrune: the filters change no output, only the time: HC
// output against a Dict equals that against the same Dict with every
// filter bit set (no search skipped), and every suffix passes its own
// filters.
func TestFiltersOnlyPrune(t *testing.T) {
	dict := lineitemValues(1, MaxDictLen)
	src := lineitemValues(2, 16<<10)
	d, open := NewDict(dict), NewDict(dict)
	x := open.suffixes()
	for i := range x.has6 {
		x.has6[i], x.has8[i] = math.MaxUint64, math.MaxUint64
	}
	for _, p := range d.suffixes().sa {
		w := binary.LittleEndian.Uint64(dict[p:])
		for l := filterMin; l <= 9; l++ {
			require.True(t, d.suffixes().mayHold(w, l), "suffix at %d, %d bytes", p, l)
		}
	}
	skipped := 0
	for i := 0; i+8 <= len(src); i++ {
		if !d.suffixes().mayHold(binary.LittleEndian.Uint64(src[i:]), 8) {
			skipped++
		}
	}
	assert.Greater(t, skipped, 0, "the 8-byte filter passes every input position")
	for _, level := range []int{5, LevelHC} {
		c := Compressor{Level: level}
		for off := 0; off < len(src); off += 1 << 10 {
			sub := src[off : off+1<<10]
			got := c.CompressBlockDict(nil, sub, d)
			want := c.CompressBlockDict(nil, sub, open)
			require.Equal(t, want, got, "level %d, sub-block at %d", level, off)
		}
	}
}

// TestDictLevels: on 1 KiB inputs of lineitem-like values against a
// prepared Dict of others, the levels above 4, whose lazy steps search the
// dictionary too, give smaller output than level 4, and level 9 the
// smallest.
func TestDictLevels(t *testing.T) {
	d := NewDict(lineitemValues(1, MaxDictLen))
	area := lineitemValues(2, 32<<10)
	size := map[int]int{}
	for _, level := range []int{1, 4, 5, 7, 9} {
		c := Compressor{Level: level}
		for off := 0; off < len(area); off += 1 << 10 {
			size[level] += len(roundTripDict(t, &c, area[off:off+1<<10], d))
		}
	}
	t.Logf("bytes per level for %d: %v", len(area), size)
	assert.LessOrEqual(t, size[4], size[1], "level 4 vs 1")
	assert.Less(t, size[5], size[4], "level 5 vs 4")
	assert.LessOrEqual(t, size[7], size[5], "level 7 vs 5")
	assert.LessOrEqual(t, size[9], size[7], "level 9 vs 7")
}
