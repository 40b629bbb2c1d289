package shapeshift

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/pierrec/lz4/v4"
	"github.com/stretchr/testify/require"
)

// benchN is the number of values in every benchmark column: 4 chunks of the
// default size, so decoded values (512 KiB) stay in L2 as they would in a
// chunk-at-a-time scan; 8 MiB columns measured memory bandwidth instead.
const benchN = 1 << 16

// benchSets are the synthetic columns the benchmarks use (fixed seeds).
var benchSets = []string{"timestamps", "orderkeys", "counter", "gauge", "sparse", "random8", "random13", "random32", "runs", "outliers", "lowcard"}

var benchData = struct {
	sync.Mutex
	m map[string][]int64
}{m: map[string][]int64{}}

func benchValues(b *testing.B, name string) []int64 {
	benchData.Lock()
	defer benchData.Unlock()
	if v, ok := benchData.m[name]; ok {
		return v
	}
	for _, d := range datasets {
		if d.name == name {
			v := genData(d, 42, benchN)
			benchData.m[name] = v
			return v
		}
	}
	b.Fatalf("no dataset %q", name)
	return nil
}

var (
	sinkBytes []byte
	sinkInts  []int64
	sinkInt   int64
)

// reportPerValue adds ns/value and bytes/value metrics.
func reportPerValue(b *testing.B, n int, encBytes int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/value")
	b.ReportMetric(float64(encBytes)/float64(n), "bytes/value")
}

func BenchmarkEncode(b *testing.B) {
	for _, name := range benchSets {
		for _, tg := range targets {
			b.Run(fmt.Sprintf("data=%s/target=%v", name, tg), func(b *testing.B) {
				v := benchValues(b, name)
				dst := Encode(nil, v, Options{Target: tg})
				b.ReportAllocs()
				b.SetBytes(int64(8 * len(v))) // input bytes: 8 per int64
				b.ResetTimer()
				for range b.N {
					dst = Encode(dst[:0], v, Options{Target: tg})
				}
				sinkBytes = dst
				reportPerValue(b, len(v), len(dst))
			})
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, name := range benchSets {
		for _, tg := range targets {
			b.Run(fmt.Sprintf("data=%s/target=%v", name, tg), func(b *testing.B) {
				v := benchValues(b, name)
				enc := Encode(nil, v, Options{Target: tg})
				dst, err := Decode(nil, enc)
				require.NoError(b, err)
				b.ReportAllocs()
				b.SetBytes(int64(8 * len(v))) // output bytes: 8 per int64
				b.ResetTimer()
				for range b.N {
					dst, _ = Decode(dst[:0], enc)
				}
				sinkInts = dst
				reportPerValue(b, len(v), len(enc))
			})
		}
	}
}

// formBench names the dataset each form is benchmarked on.
var formBench = []struct {
	form Form
	data string
}{
	{Zero, "zero"},
	{Constant, "constant"},
	{BytePack, "random8"},
	{BytePack, "random13"},
	{BytePack, "random32"},
	{BitPack, "random8"},
	{BitPack, "random13"},
	{BitPack, "random32"},
	{Delta, "timestamps"},
	{Delta, "counter"},
	{PatchedDelta, "orderkeys"},
	{PatchedDelta, "counter"},
	{RunLength, "runs"},
	{Patched, "outliers"},
	{Patched, "sparse"},
	{LZ4, "lowcard"},
	{LZ4, "random8"},
	{Raw, "random64"},
}

// BenchmarkDecodeForm is the source of the costs in factors.go: bulk decode
// of a column whose every chunk is forced into one form.
func BenchmarkDecodeForm(b *testing.B) {
	for _, fb := range formBench {
		b.Run(fmt.Sprintf("form=%v/data=%s", fb.form, fb.data), func(b *testing.B) {
			v := benchValues(b, fb.data)
			enc := encodeForced(v, fb.form, DefaultLogChunkSize)
			col, err := Open(enc)
			require.NoError(b, err)
			require.Equal(b, len(col.chunks), col.Composition()[fb.form], "forced column is %v", col.Composition())
			dst, _ := Decode(nil, enc)
			b.ReportAllocs()
			b.SetBytes(int64(8 * len(v))) // output bytes: 8 per int64
			b.ResetTimer()
			for range b.N {
				dst, _ = Decode(dst[:0], enc)
			}
			sinkInts = dst
			reportPerValue(b, len(v), len(enc))
		})
	}
}

// BenchmarkGet measures random and sequential Column.Get.
func BenchmarkGet(b *testing.B) {
	idx := make([]int, 4096)
	r := rand.New(rand.NewPCG(7, 7))
	for i := range idx {
		idx[i] = r.IntN(benchN)
	}
	for _, name := range benchSets {
		for _, order := range []string{"random", "sequential"} {
			b.Run(fmt.Sprintf("data=%s/order=%s", name, order), func(b *testing.B) {
				v := benchValues(b, name)
				enc := Encode(nil, v, Options{})
				col, err := Open(enc)
				require.NoError(b, err)
				b.ReportAllocs()
				var s int64
				b.ResetTimer()
				if order == "random" {
					for i := range b.N {
						s += col.Get(idx[i&4095])
					}
				} else {
					for i := range b.N {
						s += col.Get(i & (benchN - 1))
					}
				}
				sinkInt = s
				b.ReportMetric(float64(len(enc))/float64(len(v)), "bytes/value")
			})
		}
	}
}

// Baselines to compare the column with: LZ4 over fixed-width
// byte packing in 64 KiB buffers (Druid's CompressedVSizeColumnarInts; the
// width is the column's, values taken relative to the column min so that
// negative values pack too) and zigzag uvarint.

const lz4BufSize = 64 << 10

// lz4BytePackEncode returns, for each 64 KiB buffer of packed values, its
// LZ4 block (or nil when incompressible, with raw bytes kept instead).
func lz4BytePackEncode(v []int64) (blocks [][]byte, raw [][]byte, w int, base int64, size int) {
	base = v[0]
	hi := v[0]
	for _, x := range v {
		base, hi = min(base, x), max(hi, x)
	}
	w = byteWidth(bits.Len64(uint64(hi - base)))
	perBuf := lz4BufSize / w
	var c lz4.Compressor
	for lo := 0; lo < len(v); lo += perBuf {
		chunk := v[lo:min(lo+perBuf, len(v))]
		packed := putBytePack(nil, chunk, base, w)[:len(chunk)*w]
		out := make([]byte, lz4.CompressBlockBound(len(packed)))
		k, _ := c.CompressBlock(packed, out)
		if k == 0 {
			blocks, raw = append(blocks, nil), append(raw, packed)
			size += len(packed) + 4
			continue
		}
		blocks, raw = append(blocks, out[:k]), append(raw, nil)
		size += k + 4 // a 4-byte length per buffer
	}
	return blocks, raw, w, base, size
}

func BenchmarkBaseline(b *testing.B) {
	for _, name := range benchSets {
		b.Run(fmt.Sprintf("codec=lz4bytepack/data=%s", name), func(b *testing.B) {
			v := benchValues(b, name)
			blocks, raw, w, base, size := lz4BytePackEncode(v)
			dst := make([]int64, len(v))
			buf := make([]byte, lz4BufSize+8)
			perBuf := lz4BufSize / w
			b.ReportAllocs()
			b.SetBytes(int64(8 * len(v))) // output bytes: 8 per int64
			b.ResetTimer()
			for range b.N {
				for i := range blocks {
					out := dst[i*perBuf : min(i*perBuf+perBuf, len(v))]
					src := raw[i]
					if blocks[i] != nil {
						k, err := lz4.UncompressBlock(blocks[i], buf[:len(out)*w])
						if err != nil || k != len(out)*w {
							b.Fatal("lz4 baseline", err)
						}
						src = buf
					}
					unpackBytes(out, src[:len(out)*w+8-w], w, base)
				}
			}
			sinkInts = dst
			reportPerValue(b, len(v), size)
		})
		b.Run(fmt.Sprintf("codec=uvarint/data=%s", name), func(b *testing.B) {
			v := benchValues(b, name)
			var enc []byte
			for _, x := range v {
				enc = binary.AppendVarint(enc, x)
			}
			dst := make([]int64, len(v))
			b.ReportAllocs()
			b.SetBytes(int64(8 * len(v))) // output bytes: 8 per int64
			b.ResetTimer()
			for range b.N {
				p := enc
				for i := range dst {
					x, k := binary.Varint(p)
					dst[i] = x
					p = p[k:]
				}
			}
			sinkInts = dst
			reportPerValue(b, len(v), len(enc))
		})
	}
}

// BenchmarkGetSorted reads 4096 sorted random rows of a 600k-value column
// per op, as bench/'s ints Get table does (ns/op / 4096 = ns per Get).
func BenchmarkGetSorted(b *testing.B) {
	const n = 600_000
	rows := make([]int, 4096)
	r := rand.New(rand.NewPCG(11, 113))
	for i := range rows {
		rows[i] = r.IntN(n)
	}
	slices.Sort(rows)
	for _, name := range []string{"random13", "timestamps", "outliers", "lowcard", "orderkeys"} {
		b.Run("data="+name, func(b *testing.B) {
			v := genData(datasetByName(name), 42, n)
			col, err := Open(Encode(nil, v, Options{}))
			require.NoError(b, err)
			var s int64
			b.ResetTimer()
			for range b.N {
				for _, i := range rows {
					s += col.Get(i)
				}
			}
			sinkInt = s
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rows)), "ns/get")
		})
	}
}
