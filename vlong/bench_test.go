package vlong_test

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/kvenc/kvenc/vlong"
	"github.com/stretchr/testify/require"
)

const streamLen = 4096

// valueSets are the benchmark inputs: streams of streamLen values whose
// vlong encodings have the named length, built from a fixed seed.
var valueSets = []struct {
	name string
	gen  func(r *rand.Rand) int64
}{
	{"1byte", func(r *rand.Rand) int64 { return r.Int64N(128) }},                       // 0..127
	{"3byte", func(r *rand.Rand) int64 { return 256 + r.Int64N(65536-256) }},           // ~512: 2 payload bytes
	{"5byte", func(r *rand.Rand) int64 { return 564069676 + r.Int64N(1<<20) }},         // an MVCC number from a real HBase server
	{"7byte", func(r *rand.Rand) int64 { return 1700104028981 + r.Int64N(86400000) }},  // epoch milliseconds
	{"9byte", func(r *rand.Rand) int64 { return 1<<62 + r.Int64N(1<<61) }},             // 8 payload bytes
	{"mix", func(r *rand.Rand) int64 { return int64(r.Uint64() >> (r.IntN(64) + 1)) }}, // every length
}

type stream struct {
	vlongs  []byte // the values as vlongs, back to back
	uvarint []byte // the same values as binary.Uvarint
	sum     int64  // their sum, checked after decoding
}

func makeStream(gen func(r *rand.Rand) int64) stream {
	r := rand.New(rand.NewPCG(42, 7))
	var s stream
	for i := 0; i < streamLen; i++ {
		v := gen(r)
		s.vlongs = vlong.Append(s.vlongs, v)
		s.uvarint = binary.AppendUvarint(s.uvarint, uint64(v))
		s.sum += v
	}
	return s
}

var sink int64

// BenchmarkDecode decodes streams of 4096 values back to back; ns/op is per
// stream, and the ns/value metric divides by 4096. SetBytes counts the
// encoded vlong bytes of one stream.
func BenchmarkDecode(b *testing.B) {
	for _, vs := range valueSets {
		s := makeStream(vs.gen)
		run := func(name string, enc []byte, decode func([]byte) int64) {
			b.Run("values="+vs.name+"/dec="+name, func(b *testing.B) {
				require.Equal(b, s.sum, decode(enc), "decoded sum")
				b.SetBytes(int64(len(enc)))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					sink += decode(enc)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/streamLen, "ns/value")
			})
		}
		run("bytewise", s.vlongs, decodeBytewise)
		run("421", s.vlongs, decode421)
		run("421inline", s.vlongs, decodeInline)
		run("wide", s.vlongs, decodeWide)
		run("uvarint", s.uvarint, decodeUvarint)
	}
}

// The loops below call each decoder directly, as a real caller does: going
// through a func value would add an indirect call to every value and hide
// the differences being measured. They are written out once per decoder
// on purpose.

func decodeBytewise(b []byte) int64 {
	var sum int64
	for len(b) > 0 {
		v, n, err := vlong.DecodeBytewise(b)
		if err != nil {
			panic(err)
		}
		sum += v
		b = b[n:]
	}
	return sum
}

func decode421(b []byte) int64 {
	var sum int64
	for len(b) > 0 {
		v, n, err := vlong.Decode(b)
		if err != nil {
			panic(err)
		}
		sum += v
		b = b[n:]
	}
	return sum
}

func decodeWide(b []byte) int64 {
	var sum int64
	for len(b) > 0 {
		v, n, err := vlong.DecodeWide(b)
		if err != nil {
			panic(err)
		}
		sum += v
		b = b[n:]
	}
	return sum
}

// decodeInline is the loop OneByte's doc recommends: the one-byte case is
// inlined, longer values call Decode.
func decodeInline(b []byte) int64 {
	var sum int64
	for len(b) > 0 {
		if v, ok := vlong.OneByte(b[0]); ok {
			sum += v
			b = b[1:]
			continue
		}
		v, n, err := vlong.Decode(b)
		if err != nil {
			panic(err)
		}
		sum += v
		b = b[n:]
	}
	return sum
}

func decodeUvarint(b []byte) int64 {
	var sum int64
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			panic("bad uvarint")
		}
		sum += int64(v)
		b = b[n:]
	}
	return sum
}

// BenchmarkAppend encodes a stream of 4096 values into a reused buffer.
func BenchmarkAppend(b *testing.B) {
	for _, vs := range valueSets {
		r := rand.New(rand.NewPCG(42, 7))
		vals := make([]int64, streamLen)
		for i := range vals {
			vals[i] = vs.gen(r)
		}
		b.Run("values="+vs.name, func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, streamLen*vlong.MaxLen)
			for i := 0; i < b.N; i++ {
				buf = buf[:0]
				for _, v := range vals {
					buf = vlong.Append(buf, v)
				}
			}
			sink += int64(len(buf))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/streamLen, "ns/value")
		})
	}
}
