package vlong_test

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kvenc/kvenc/vlong"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decoders are the three decoders under test, with the reference first.
var decoders = []struct {
	name string
	fn   func([]byte) (int64, int, error)
}{
	{"bytewise", vlong.DecodeBytewise},
	{"421", vlong.Decode},
	{"wide", vlong.DecodeWide},
}

// hadoopWriteVLong is a line-by-line transcription of Hadoop's
// WritableUtils.writeVLong, kept deliberately naive as an independent
// reference for Put/Append.
func hadoopWriteVLong(i int64) []byte {
	if i >= -112 && i <= 127 {
		return []byte{byte(i)}
	}
	ln := -112
	if i < 0 {
		i ^= -1
		ln = -120
	}
	tmp := i
	for tmp != 0 {
		tmp >>= 8
		ln--
	}
	out := []byte{byte(int8(ln))}
	if ln < -120 {
		ln = -(ln + 120)
	} else {
		ln = -(ln + 112)
	}
	for idx := ln; idx != 0; idx-- {
		shift := (idx - 1) * 8
		mask := int64(0xFF) << shift
		out = append(out, byte((i&mask)>>shift))
	}
	return out
}

// Vectors from Hadoop's WritableUtils (value -> bytes).
var hadoopVectors = []struct {
	v   int64
	hex string
}{
	{0, "00"},
	{127, "7f"},
	{-112, "90"},
	{-113, "8770"},
	{128, "8f80"},
	{256, "8e0100"},
	{-129, "8780"},
	{2147483647, "8c7fffffff"},
	{-2147483648, "847fffffff"},
	{2147483648, "8c80000000"},
	{564069676, "8c219f052c"},
	{1700104028981, "8a018bd618c335"},
	{9223372036854775807, "887fffffffffffffff"},
	{-9223372036854775808, "807fffffffffffffff"},
}

func TestHadoopVectors(t *testing.T) {
	for _, tc := range hadoopVectors {
		want, err := hex.DecodeString(tc.hex)
		require.NoError(t, err)
		assert.Equal(t, tc.hex, hex.EncodeToString(vlong.Append(nil, tc.v)), "Append(%d)", tc.v)
		assert.Equal(t, tc.hex, hex.EncodeToString(hadoopWriteVLong(tc.v)), "reference writeVLong(%d)", tc.v)
		assert.Equal(t, len(want), vlong.Size(tc.v), "Size(%d)", tc.v)
		assert.Equal(t, len(want), vlong.LenFromFirstByte(want[0]), "LenFromFirstByte(%#x)", want[0])
		checkDecodeAll(t, want, tc.v)
	}
}

// boundaries returns every value where the encoded length changes, and its
// neighbours: ±2^(8k), ±2^(8k)-1 for each k, -112/-113, 127/128, MinInt64, MaxInt64.
func boundaries() []int64 {
	vs := []int64{0, 1, -1, 127, 128, -112, -113, -111, 126, 129, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}
	for k := 1; k <= 7; k++ {
		p := int64(1) << (8 * k)
		vs = append(vs, p, p-1, p+1, -p, -p-1, -p+1, p/2, p/2-1, -p/2, -p/2-1)
	}
	return vs
}

func TestBoundaries(t *testing.T) {
	for _, v := range boundaries() {
		want := hadoopWriteVLong(v)
		require.Equal(t, want, vlong.Append(nil, v), "Append(%d)", v)
		buf := make([]byte, vlong.MaxLen)
		n := vlong.Put(buf, v)
		require.Equal(t, want, buf[:n], "Put(%d) wrote %d bytes", v, n)
		require.Equal(t, len(want), vlong.Size(v), "Size(%d)", v)
		checkDecodeAll(t, want, v)
	}
}

// checkDecodeAll decodes enc with every decoder, unpadded and padded with
// trailing bytes (so DecodeWide takes its 8-byte load), and expects v.
func checkDecodeAll(t *testing.T, enc []byte, v int64) {
	t.Helper()
	padded := append(append([]byte(nil), enc...), 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88, 0x77)
	for _, d := range decoders {
		for _, b := range [][]byte{enc, padded} {
			got, n, err := d.fn(b)
			require.NoError(t, err, "%s(%x)", d.name, b)
			require.Equal(t, v, got, "%s(%x) value", d.name, b)
			require.Equal(t, len(enc), n, "%s(%x) length", d.name, b)
		}
		// Every proper prefix is truncated.
		for cut := 0; cut < len(enc); cut++ {
			_, _, err := d.fn(enc[:cut])
			require.ErrorIs(t, err, vlong.ErrTruncated, "%s(%x)", d.name, enc[:cut])
		}
	}
}

func TestOneByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		v, ok := vlong.OneByte(byte(c))
		want, n, err := vlong.DecodeBytewise([]byte{byte(c)})
		require.Equal(t, err == nil && n == 1, ok, "OneByte(%#x) ok; DecodeBytewise n=%d err=%v", c, n, err)
		if ok {
			require.Equal(t, want, v, "OneByte(%#x)", c)
		}
	}
}

func TestNonMinimal(t *testing.T) {
	cases := []struct {
		hex string
		v   int64
	}{
		{"8f05", 5},                 // one-byte value written with a payload byte
		{"8e0005", 5},               // two payload bytes, leading zero
		{"880000000000000005", 5},   // eight payload bytes
		{"8700", -1},                // ^0 with a negative marker
		{"88ffffffffffffffff", -1},  // positive marker, top bit set: Java's long bits
		{"80ffffffffffffffff", 0},   // negative marker, ^0xffff... = 0
		{"8c00000080", 128},         // 4-byte payload, small value
		{"8b0000000080", 128},       // 5-byte payload
		{"8c80000000", 2147483648},  // the masked 4-byte read (HBASE-28256)
		{"84ffffffff", -4294967296}, // negative with a full 4-byte payload
	}
	for _, tc := range cases {
		b, err := hex.DecodeString(tc.hex)
		require.NoError(t, err)
		checkDecodeAll(t, b, tc.v)
	}
}

func TestDecodersAgreeOnRandomValues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var stream []byte
	var want []int64
	for i := 0; i < 20000; i++ {
		bitsN := r.IntN(64) // every length, both signs
		v := int64(r.Uint64() >> (63 - bitsN))
		if r.IntN(2) == 0 {
			v = ^v
		}
		want = append(want, v)
		n := len(stream)
		stream = vlong.Append(stream, v)
		require.Equal(t, hadoopWriteVLong(v), stream[n:], "Append(%d) against the reference", v)
	}
	for _, d := range decoders {
		b := stream
		for i, v := range want {
			got, n, err := d.fn(b)
			require.NoError(t, err, "%s: value %d", d.name, i)
			require.Equal(t, v, got, "%s: value %d", d.name, i)
			b = b[n:]
		}
		require.Empty(t, b, "%s: bytes left after the stream", d.name)
	}
}

func TestDecodersAgreeOnRandomBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 12)
	for i := 0; i < 100000; i++ {
		n := r.IntN(len(buf) + 1)
		for j := range buf[:n] {
			buf[j] = byte(r.Uint32())
		}
		if n > 0 && r.IntN(2) == 0 {
			buf[0] = byte(0x80 + r.IntN(16)) // force a marker
		}
		agree(t, buf[:n])
	}
}

// outcome is what a decoder says about one input, in a form require.Equal
// compares: the error only as whether there is one and whether it is
// ErrTruncated.
type outcome struct {
	V         int64
	N         int
	Err       bool
	Truncated bool
}

func decodeOutcome(fn func([]byte) (int64, int, error), b []byte) outcome {
	v, n, err := fn(b)
	return outcome{V: v, N: n, Err: err != nil, Truncated: errors.Is(err, vlong.ErrTruncated)}
}

// agree checks that every decoder gives the reference's answer on b.
func agree(t *testing.T, b []byte) {
	t.Helper()
	want := decodeOutcome(vlong.DecodeBytewise, b)
	for _, d := range decoders[1:] {
		require.Equal(t, want, decodeOutcome(d.fn, b), "%s(%x) against bytewise", d.name, b)
	}
}

func TestLenFromFirstByteAllBytes(t *testing.T) {
	for c := 0; c < 256; c++ {
		s := int8(c)
		want := 1
		switch {
		case s < -120:
			want = int(-119 - int(s))
		case s < -112:
			want = int(-111 - int(s))
		}
		got := vlong.LenFromFirstByte(byte(c))
		require.Equal(t, want, got, "LenFromFirstByte(%#x)", c)
		require.GreaterOrEqual(t, got, 1, "LenFromFirstByte(%#x)", c)
		require.LessOrEqual(t, got, vlong.MaxLen, "LenFromFirstByte(%#x)", c)
	}
}

func TestDecodeAllocs(t *testing.T) {
	b := vlong.Append(nil, 1700104028981)
	b = append(b, make([]byte, 8)...)
	for _, d := range decoders {
		assert.Zero(t, testing.AllocsPerRun(100, func() { d.fn(b) }), "%s allocations per call", d.name)
	}
}

func ExampleAppend() {
	var buf []byte
	for _, v := range []int64{0, -113, 564069676} {
		buf = vlong.Append(buf, v)
	}
	fmt.Printf("% x\n", buf)
	for len(buf) > 0 {
		v, n, err := vlong.Decode(buf)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(v, n)
		buf = buf[n:]
	}
	_, _, err := vlong.Decode([]byte{0x8c, 0x21})
	fmt.Println(err)
	// Output:
	// 00 87 70 8c 21 9f 05 2c
	// 0 1
	// -113 2
	// 564069676 5
	// vlong: truncated input: need 5 bytes, have 2
}

func ExampleOneByte() {
	stream := vlong.Append(vlong.Append(vlong.Append(nil, 7), 1<<40), 9)
	var sum int64
	for len(stream) > 0 {
		if v, ok := vlong.OneByte(stream[0]); ok { // inlined: no call
			sum += v
			stream = stream[1:]
			continue
		}
		v, n, err := vlong.Decode(stream)
		if err != nil {
			fmt.Println(err)
			return
		}
		sum += v
		stream = stream[n:]
	}
	fmt.Println(sum)
	// Output: 1099511627792
}
