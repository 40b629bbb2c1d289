package lz4area

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pierrec/lz4/v4"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc/internal/lz4dict"
)

// textRows returns n bytes of pipe-separated rows of words, dates and
// numbers (lineitem-like) from seed.
func textRows(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	words := []string{"furiously", "quickly", "carefully", "blithely", "slyly", "final", "deposits",
		"packages", "requests", "DELIVER IN PERSON", "COLLECT COD", "TRUCK", "MAIL", "REG AIR"}
	var b []byte
	for len(b) < n {
		b = fmt.Appendf(b, "%d|%d|%d.%02d|199%d-%02d-%02d|%s %s|%s|\n", r.IntN(1<<20), 1+r.IntN(50), r.IntN(10000), r.IntN(100),
			2+r.IntN(7), 1+r.IntN(12), 1+r.IntN(28), words[r.IntN(len(words))], words[r.IntN(len(words))], words[r.IntN(len(words))])
	}
	return b[:n]
}

// TestDecodeDict: blocks compressed against dictionaries (matches in the
// dictionary, running on past its end, overlapping runs, long matches)
// decode as pierrec decodes them, into a dst of the exact size or larger;
// every truncation and byte flip fails or agrees with pierrec.
func TestDecodeDict(t *testing.T) {
	dict := textRows(1, 20000)
	for name, src := range map[string][]byte{
		"rows":   textRows(2, 4096),
		"runs":   append(bytes.Repeat([]byte("ab"), 300), bytes.Repeat([]byte("x"), 1000)...),
		"copies": append(append(textRows(3, 100), dict[len(dict)-300:]...), dict[:2000]...),
		"short":  []byte("tiny"),
	} {
		for _, level := range []int{0, 4, 12} {
			c := lz4dict.Compressor{Level: level}
			enc := c.CompressBlock(nil, src, dict)
			for _, slack := range []int{0, 100} {
				got := make([]byte, len(src)+slack)
				require.Equal(t, len(src), (&windows{dict: dict}).decode(got, enc), "%s level %d", name, level)
				require.Equal(t, src, got[:len(src)], "%s level %d", name, level)
			}
			for n := range len(enc) {
				checkDecodeDict(t, enc[:n], len(src), dict)
			}
			bad := bytes.Clone(enc)
			for i := range bad {
				bad[i] ^= 0x5a
				checkDecodeDict(t, bad, len(src), dict)
				bad[i] ^= 0x5a
			}
		}
	}
}

// checkDecodeDict: a window on dict agrees with pierrec on src into n
// bytes (with a guard after them): when pierrec decodes it, the same
// bytes; it never writes past n; a reused window returns exactly what a
// fresh one did.
func checkDecodeDict(t *testing.T, src []byte, n int, dict []byte) {
	t.Helper()
	want := make([]byte, n)
	wn, err := lz4.UncompressBlockWithDict(src, want, dict)
	ws := &windows{dict: dict}
	var gn int
	var buf []byte
	for try := range 2 {
		b := make([]byte, n+16)
		for i := n; i < len(b); i++ {
			b[i] = 0xee
		}
		got := ws.decode(b[:n:n], src)
		require.Equal(t, bytes.Repeat([]byte{0xee}, 16), b[n:], "guard after dst overwritten, try %d", try)
		if try == 0 {
			gn, buf = got, b
			continue
		}
		require.Equal(t, gn, got, "reused window")
		require.Equal(t, buf[:max(gn, 0)], b[:max(gn, 0)], "reused window")
	}
	if len(src) == 0 { // pierrec takes it as no bytes; a block has a token at least
		require.Equal(t, -1, gn, "empty block")
		return
	}
	if err == nil {
		require.Equal(t, wn, gn, "bytes written (pierrec %d)", wn)
		require.Equal(t, want[:wn], buf[:gn])
	}
}

// FuzzDecodeDict: arbitrary blocks and dictionaries decode as pierrec
// decodes them or fail, never panic or write past dst; compressed input
// round-trips.
func FuzzDecodeDict(f *testing.F) {
	dict := textRows(1, 2000)
	c := lz4dict.Compressor{Level: 4}
	f.Add(c.CompressBlock(nil, textRows(2, 500), dict), dict, uint16(500))
	f.Add(c.CompressBlock(nil, bytes.Repeat([]byte("abc"), 100), nil), []byte("abc"), uint16(300))
	f.Add([]byte{0x1f, 'a', 1, 0, 0xff, 0xff, 0x10, 'z'}, []byte("q"), uint16(600))
	f.Fuzz(func(t *testing.T, src, dict []byte, n uint16) {
		checkDecodeDict(t, src, int(n), dict)
		if len(dict) > 0 && len(src) > 0 {
			enc := c.CompressBlock(nil, src, dict)
			got := make([]byte, len(src))
			require.Equal(t, len(src), (&windows{dict: dict}).decode(got, enc))
			require.Equal(t, src, got)
		}
	})
}

// BenchmarkDecodeDict decodes 1000 distinct 1 KiB sub-blocks of rows,
// compressed against 64 KiB of other rows (sub-blocks against an external
// dictionary), one after the other, with a Dict's window (copy out
// included) and pierrec's UncompressBlockWithDict (SetBytes: the decoded
// bytes). Distinct sub-blocks, because the processor learns
// the branches of a block decoded over and over, which a scan never does.
func BenchmarkDecodeDict(b *testing.B) {
	dict := textRows(1, lz4dict.MaxDictLen)
	lz := lz4dict.NewDict(dict)
	d := NewDict(lz, 1)
	const sub = 1 << 10
	for _, level := range []int{0, 4, 9} {
		c := lz4dict.Compressor{Level: level}
		var encs [][]byte
		for i := range 1000 {
			encs = append(encs, c.CompressBlockDict(nil, textRows(uint64(i+2), sub), lz))
		}
		dst := make([]byte, sub)
		for _, impl := range []struct {
			name   string
			decode func(src []byte) int
		}{
			{"kvenc", func(src []byte) int { return d.decode(dst, src) }},
			{"pierrec", func(src []byte) int {
				n, err := lz4.UncompressBlockWithDict(src, dst, dict)
				if err != nil {
					return -1
				}
				return n
			}},
		} {
			b.Run(fmt.Sprintf("level=%d/impl=%s", level, impl.name), func(b *testing.B) {
				b.SetBytes(int64(len(encs) * sub))
				for b.Loop() {
					for _, src := range encs {
						if impl.decode(src) != sub {
							b.Fatal("decode")
						}
					}
				}
			})
		}
	}
}
