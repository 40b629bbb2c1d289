package fuzz

import (
	"errors"
	"testing"

	gofuzz "github.com/google/gofuzz"
	"github.com/stretchr/testify/require"

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
		require.Len(t, enc, vlong.Size(v), "%d: encoded %x: Size", v, enc)
		require.Equal(t, len(enc), vlong.LenFromFirstByte(enc[0]), "%d: encoded %x: LenFromFirstByte", v, enc)
		var buf [vlong.MaxLen + 1]byte
		buf[len(enc)] = 0xa5 // guard byte after the value
		n := vlong.Put(buf[:], v)
		require.Equal(t, len(enc), n, "%d: Put n, Append %x", v, enc)
		require.Equal(t, enc, buf[:n], "%d: Put vs Append", v)
		require.Equal(t, byte(0xa5), buf[n], "%d: Put wrote past the value", v)
		padded := append(append([]byte(nil), enc...), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
		for _, d := range vlongDecoders {
			for _, b := range [][]byte{enc, padded} {
				got, n, err := d.fn(b)
				require.NoError(t, err, "%s(%x)", d.name, b)
				require.Equal(t, v, got, "%s(%x) value", d.name, b)
				require.Equal(t, len(enc), n, "%s(%x) length", d.name, b)
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
		if rerr != nil {
			require.ErrorIs(t, rerr, vlong.ErrTruncated, "bytewise(%x)", b)
		} else {
			require.GreaterOrEqual(t, rn, 1, "bytewise(%x): n", b)
			require.LessOrEqual(t, rn, len(b), "bytewise(%x): n", b)
		}
		for _, d := range vlongDecoders[1:] {
			v, n, err := d.fn(b)
			require.Equal(t, rv, v, "%s(%x) value vs bytewise", d.name, b)
			require.Equal(t, rn, n, "%s(%x) length vs bytewise", d.name, b)
			require.Equal(t, rerr == nil, err == nil, "%s(%x) error %v, bytewise %v", d.name, b, err, rerr)
			require.Equal(t, errors.Is(rerr, vlong.ErrTruncated), errors.Is(err, vlong.ErrTruncated), "%s(%x) error %v, bytewise %v", d.name, b, err, rerr)
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
				if err != nil || got != want { // cheap check per value (~800k); require only on failure
					require.NoError(t, err, "round %d, %s: value %d", round, d.name, i)
					require.Equal(t, want, got, "round %d, %s: value %d", round, d.name, i)
				}
				b = b[n:]
			}
			require.Empty(t, b, "round %d, %s: trailing bytes", round, d.name)

		}
	}
}
