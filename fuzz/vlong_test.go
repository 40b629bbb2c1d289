package fuzz

import (
	"errors"
	"testing"

	gofuzz "github.com/google/gofuzz"

	"github.com/kvenc/kvenc/vlong"
)

var vlongDecoders = []struct {
	name string
	fn   func([]byte) (int64, int, error)
}{
	{"bytewise", vlong.DecodeBytewise},
	{"421", vlong.Decode},
	{"wide", vlong.DecodeWide},
}

// FuzzVLongRoundTrip: any int64 encodes to Size(v) bytes that every decoder
// reads back, alone and followed by other bytes.
func FuzzVLongRoundTrip(f *testing.F) {
	for _, v := range []int64{0, 127, -112, -113, 128, 256, -129, 1<<31 - 1, -1 << 31, 1 << 31, 564069676, 1700104028981, 1<<63 - 1, -1 << 63} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v int64) {
		enc := vlong.Append([]byte{0xee}, v)[1:] // Append keeps dst's bytes
		if len(enc) != vlong.Size(v) || vlong.LenFromFirstByte(enc[0]) != len(enc) {
			t.Fatalf("%d: encoded %x, Size %d, LenFromFirstByte %d", v, enc, vlong.Size(v), vlong.LenFromFirstByte(enc[0]))
		}
		var buf [vlong.MaxLen + 1]byte
		buf[len(enc)] = 0xa5 // guard byte after the value
		if n := vlong.Put(buf[:], v); n != len(enc) || string(buf[:n]) != string(enc) || buf[n] != 0xa5 {
			t.Fatalf("%d: Put wrote %x (n=%d), Append %x", v, buf[:n+1], n, enc)
		}
		padded := append(append([]byte(nil), enc...), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
		for _, d := range vlongDecoders {
			for _, b := range [][]byte{enc, padded} {
				got, n, err := d.fn(b)
				if err != nil || got != v || n != len(enc) {
					t.Fatalf("%s(%x) = %d, %d, %v; want %d", d.name, b, got, n, err, v)
				}
			}
		}
	})
}

// FuzzVLongDecoders: on any bytes the three decoders agree (same value, same
// length, same error class) and never panic.
func FuzzVLongDecoders(f *testing.F) {
	for _, s := range []string{"", "\x00", "\x8f\x05", "\x88\xff\xff\xff\xff\xff\xff\xff\xff", "\x8c\x80\x00\x00", "\x80", "\x87\x70\x01"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rv, rn, rerr := vlong.DecodeBytewise(b)
		if rerr != nil && !errors.Is(rerr, vlong.ErrTruncated) {
			t.Fatalf("bytewise(%x): error %v does not wrap ErrTruncated", b, rerr)
		}
		if rerr == nil && (rn < 1 || rn > len(b)) {
			t.Fatalf("bytewise(%x): n = %d", b, rn)
		}
		for _, d := range vlongDecoders[1:] {
			v, n, err := d.fn(b)
			if v != rv || n != rn || (err == nil) != (rerr == nil) || errors.Is(err, vlong.ErrTruncated) != errors.Is(rerr, vlong.ErrTruncated) {
				t.Fatalf("%s(%x) = %d, %d, %v; bytewise %d, %d, %v", d.name, b, v, n, err, rv, rn, rerr)
			}
		}
	})
}

// TestVLongGofuzzStream appends many gofuzz-chosen values back to back and
// decodes them in order with each decoder.
func TestVLongGofuzzStream(t *testing.T) {
	fz := gofuzz.NewWithSeed(7).NilChance(0).NumElements(0, 2000)
	for round := 0; round < 200; round++ {
		var vals []int64
		fz.Fuzz(&vals)
		// gofuzz draws int64s uniformly, so almost all are 9 bytes: shift
		// each by a drawn amount to cover every length.
		var shifts []uint8
		fz.NumElements(len(vals), len(vals)).Fuzz(&shifts)
		fz.NumElements(0, 2000)
		var stream []byte
		for i := range vals {
			vals[i] >>= shifts[i] % 64
			stream = vlong.Append(stream, vals[i])
		}
		for _, d := range vlongDecoders {
			b := stream
			for i, want := range vals {
				got, n, err := d.fn(b)
				if err != nil || got != want {
					t.Fatalf("round %d, %s: value %d = %d, %v; want %d", round, d.name, i, got, err, want)
				}
				b = b[n:]
			}
			if len(b) != 0 {
				t.Fatalf("round %d, %s: %d trailing bytes", round, d.name, len(b))
			}
		}
	}
}
