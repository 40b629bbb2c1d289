package shapeshift

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

var alpBench struct {
	sync.Once
	files []alpFile
}

// benchALP returns ALP's files, read once per benchmark binary.
func benchALP(b *testing.B) []alpFile {
	alpBench.Do(func() { alpBench.files = loadALP(b) })
	return alpBench.files
}

var sinkFloats []float64

// BenchmarkEncodeFloat64 encodes each ALP file (1,024 values) as one
// column; it reports ns/value and bits/value (the encoded size).
func BenchmarkEncodeFloat64(b *testing.B) {
	for _, f := range benchALP(b) {
		b.Run("file="+f.name, func(b *testing.B) {
			dst := EncodeFloat64(nil, f.values, Options{})
			b.ReportAllocs()
			b.SetBytes(int64(8 * len(f.values))) // input bytes: 8 per float64
			b.ResetTimer()
			for range b.N {
				dst = EncodeFloat64(dst[:0], f.values, Options{})
			}
			sinkBytes = dst
			reportFloat(b, len(f.values), len(dst))
		})
	}
}

// BenchmarkDecodeFloat64 decodes each ALP file's column whole.
func BenchmarkDecodeFloat64(b *testing.B) {
	for _, f := range benchALP(b) {
		b.Run("file="+f.name, func(b *testing.B) {
			enc := EncodeFloat64(nil, f.values, Options{})
			dst, err := DecodeFloat64(nil, enc)
			require.NoError(b, err)
			b.ReportAllocs()
			b.SetBytes(int64(8 * len(f.values))) // output bytes: 8 per float64
			b.ResetTimer()
			for range b.N {
				dst, _ = DecodeFloat64(dst[:0], enc)
			}
			sinkFloats = dst
			reportFloat(b, len(f.values), len(enc))
		})
	}
}

// BenchmarkGetFloat64 reads each ALP file's values in a fixed random
// order through FloatColumn.Get.
func BenchmarkGetFloat64(b *testing.B) {
	for _, f := range benchALP(b) {
		b.Run("file="+f.name, func(b *testing.B) {
			enc := EncodeFloat64(nil, f.values, Options{})
			col, err := OpenFloat64(enc)
			require.NoError(b, err)
			idx := make([]int, 4096)
			for i := range idx {
				idx[i] = int(uint(i*7919+13) % uint(len(f.values)))
			}
			var s float64
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				s += col.Get(idx[i&4095])
			}
			sinkFloat = s
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/get")
		})
	}
}

var sinkFloat float64

func reportFloat(b *testing.B, n, encBytes int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/value")
	b.ReportMetric(float64(8*encBytes)/float64(n), "bits/value")
}
