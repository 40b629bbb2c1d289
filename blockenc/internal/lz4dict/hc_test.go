package lz4dict

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pierrec/lz4/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hcLevels are the levels the HC tests run: the shallowest, a middle one,
// the default, and the first optimal-parse level (TestLevels covers the
// deeper, slower ones).
var hcLevels = []int{1, 5, LevelHC, LevelOpt}

// hcCorpus is corpus() plus the text-like data, 70000 bytes each (longer
// than the 64 KiB window), plus inputs of every length 0..20.
func hcCorpus() map[string][]byte {
	data := corpus()
	for name, b := range textData(70000) {
		data[name] = b
	}
	r := rand.New(rand.NewPCG(5, 5))
	for n := 0; n <= 20; n++ {
		rnd, rep := make([]byte, n), make([]byte, n)
		for i := range rnd {
			rnd[i] = byte(r.Uint32())
			rep[i] = "ab"[i%3/2]
		}
		data[fmt.Sprintf("len%d-random", n)] = rnd
		data[fmt.Sprintf("len%d-repeat", n)] = rep
	}
	return data
}

func TestHCRoundTripNoDict(t *testing.T) {
	for _, level := range hcLevels {
		c := Compressor{Level: level}
		for name, src := range hcCorpus() {
			t.Run(fmt.Sprintf("level=%d/data=%s", level, name), func(t *testing.T) {
				roundTrip(t, &c, src, nil)
			})
		}
	}
}

// TestHCRoundTripDict compresses each input against three dictionaries: its
// own first part (Lucene's split), a dictionary of a different shape, and one
// longer than MaxDictLen that ends with the start of the input.
func TestHCRoundTripDict(t *testing.T) {
	data := hcCorpus()
	long := append(append([]byte(nil), data["random"]...), data["comments"]...) // 110000 bytes
	for _, level := range []int{1, LevelHC, LevelOpt} {
		c := Compressor{Level: level}
		for name, src := range data {
			t.Run(fmt.Sprintf("level=%d/data=%s", level, name), func(t *testing.T) {
				d := len(src) / 20
				roundTrip(t, &c, src[d:], src[:d])
				roundTrip(t, &c, src, data["text"][:5000])
				if level != LevelOpt || len(src) < 1000 {
					// Slow at LevelOpt: 64K dictionary positions per call.
					dict := append(long[:len(long):len(long)], src[:min(len(src), 3000)]...)
					roundTrip(t, &c, src, dict)
				}
			})
		}
	}
}

func TestHCDictionaryIsUsed(t *testing.T) {
	c := Compressor{Level: LevelHC}
	r := rand.New(rand.NewPCG(1, 1))
	dict := make([]byte, 100000) // longer than MaxDictLen: only the tail is used
	for i := range dict {
		dict[i] = byte(r.Uint32())
	}
	src := append([]byte(nil), dict[len(dict)-300:]...) // reachable
	src = append(src, dict[1000:1300]...)               // beyond the window
	src = append(src, src[:200]...)
	src = append(src, "end of the input."...)
	enc := roundTrip(t, &c, src, dict)
	assert.LessOrEqual(t, len(enc), len(src)/2+350, "bytes for %d: matches into the dictionary were not found", len(src))
	// A match that starts in the dictionary and runs on into the input.
	src = append(append([]byte(nil), dict[len(dict)-100:]...), dict[len(dict)-100:]...)
	src = append(src, "tail of it, literal"...)
	assert.LessOrEqual(t, len(roundTrip(t, &c, src, dict)), 40, "bytes for a 200-byte repeat of the dictionary's end")
}

// TestHCWithinCompressBound: incompressible inputs of many lengths, with and
// without a dictionary, never exceed CompressBound (roundTrip checks).
func TestHCWithinCompressBound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	c := Compressor{Level: LevelHC}
	dict := make([]byte, 2000)
	for i := range dict {
		dict[i] = byte(r.Uint32())
	}
	for _, n := range []int{0, 1, 13, 254, 255, 256, 269, 270, 271, 1000, 65535, 65536, 65537, 200000} {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		roundTrip(t, &c, src, nil)
		roundTrip(t, &c, src, dict)
		// Random bytes with a few short matches sprinkled in: many
		// sequences with short literal runs, the worst case for tokens.
		for i := 0; i+40 < n; i += 40 {
			copy(src[i+20:i+24], src[i:i+4])
		}
		roundTrip(t, &c, src, dict)
	}
}

// TestHCSmaller: on text-like data HC output is clearly (10%) smaller than
// fast mode's and pierrec's fast mode (on sorted keys, where fast mode does
// well already, just smaller), and no larger than pierrec's HC at the same
// chain depth (256); the optimal parse at that depth is no larger than the
// lazy one.
func TestHCSmaller(t *testing.T) {
	data := textData(64 << 10)
	data["text"], data["keys"] = corpus()["text"], corpus()["keys"]
	for name, src := range data {
		fast := len((&Compressor{}).CompressBlock(nil, src, nil))
		hc := len((&Compressor{Level: LevelHC}).CompressBlock(nil, src, nil))
		buf := make([]byte, lz4.CompressBlockBound(len(src)))
		pfast, err := (&lz4.Compressor{}).CompressBlock(src, buf)
		require.NoError(t, err)
		phc, err := (&lz4.CompressorHC{Level: 256}).CompressBlock(src, buf)
		require.NoError(t, err)
		opt := len((&Compressor{Level: LevelOpt}).CompressBlock(nil, src, nil))
		t.Logf("%s: %d bytes -> fast %d, HC %d, opt %d, pierrec fast %d, pierrec HC-256 %d", name, len(src), fast, hc, opt, pfast, phc)
		assert.LessOrEqual(t, opt, hc, "%s: LevelOpt bytes vs LevelHC", name)
		want := 0.9
		if name == "keys" {
			want = 1
		}
		assert.Less(t, float64(hc), want*float64(min(fast, pfast)), "%s: HC %d bytes, not 10%% below fast %d / pierrec fast %d", name, hc, fast, pfast)
		assert.LessOrEqual(t, hc, phc, "%s: HC bytes vs pierrec HC-256", name)
	}
}

// TestLevels: negative levels are fast mode, levels above LevelMax are
// LevelMax, deeper levels do not compress text worse, and the deepest
// level round-trips.
func TestLevels(t *testing.T) {
	src := textData(50000)["comments"]
	enc := func(level int) []byte { return (&Compressor{Level: level}).CompressBlock(nil, src, nil) }
	assert.Equal(t, enc(LevelFast), enc(-3), "Level -3 differs from LevelFast")
	assert.Equal(t, enc(LevelMax), enc(LevelMax+1), "Level LevelMax+1 differs from LevelMax")
	prevLevel, prev := 1, len(enc(1))
	for _, level := range []int{3, 5, 7, 9, 10, 11, 12} {
		n := len(enc(level))
		assert.LessOrEqual(t, n, prev, "level %d: bytes, more than at level %d", level, prevLevel)
		prevLevel, prev = level, n
	}
	roundTrip(t, &Compressor{Level: LevelMax}, src, src[:4000])
}

func TestHCReuse(t *testing.T) {
	data := hcCorpus()
	src, dict := data["keys"], data["text"][:3000]
	c := Compressor{Level: LevelHC}
	a := c.CompressBlock(nil, src, dict)
	c.CompressBlock(nil, data["random"], nil)
	c.Level = LevelFast
	c.CompressBlock(nil, data["zeros"], data["keys"])
	c.Level = LevelHC
	c.CompressBlock(nil, data["len7-random"], nil)
	b := c.CompressBlock(nil, src, dict)
	require.Equal(t, a, b, "output depends on earlier calls")
	src = src[:16<<10]
	out := make([]byte, 0, CompressBound(len(src)))
	for _, level := range []int{LevelFast, LevelHC, LevelOpt} {
		c.Level = level
		assert.Zero(t, testing.AllocsPerRun(5, func() { out = c.CompressBlock(out[:0], src, dict) }), "level %d: allocations per reused call", level)
	}
}

// TestOffsetLimit: bytes repeated exactly 65536 and 65535 bytes later. Only
// the second repeat is reachable (offsets stop at 65535). The filler is
// random runs of 100 bytes each followed by a copy of its last 8 bytes, so
// matches are short and near (the scan never accelerates). Fast mode is left
// out: it hashes 6 bytes at a time, one in four positions here.
func TestOffsetLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	var src []byte
	for len(src) < 65536 {
		for i := 0; i < 100; i++ {
			src = append(src, byte(r.Uint32()))
		}
		src = append(src, src[len(src)-8:]...)
	}
	src = src[:65536]
	src = append(src, src[:1000]...) // offset 65536: out of reach
	without := append(src[:len(src):len(src)], "0123456789abcdef"...)
	src = append(src, src[2001:3001]...) // offset 65535
	src = append(src, "0123456789abcdef"...)
	for _, level := range []int{1, LevelHC} {
		c := Compressor{Level: level}
		base := len(roundTrip(t, &c, without, nil))
		assert.LessOrEqual(t, len(roundTrip(t, &c, src, nil)), base+20, "level %d: bytes vs %d without the 65535-byte repeat: it was not matched", level, base)
	}
}

// TestOptLargeInput: inputs over optMaxInput are parsed as at LevelHC.
func TestOptLargeInput(t *testing.T) {
	src := bytes.Repeat([]byte("0123456789abcdef"), optMaxInput/16+1)
	c := Compressor{Level: LevelOpt}
	opt := roundTrip(t, &c, src, nil)
	assert.Zero(t, cap(c.opt), "optimal-parse nodes allocated for %d bytes", len(src))
	assert.Equal(t, (&Compressor{Level: LevelHC}).CompressBlock(nil, src, nil), opt, "LevelOpt on %d bytes differs from LevelHC", len(src))
}
