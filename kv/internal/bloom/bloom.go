package bloom

import (
	"fmt"
	"math"

	"github.com/kvenc/kvenc/blockenc"
)

// Version is the filter format version, byte 0 of every filter.
const Version = 1

// BitsPerKey is the size of the filters a Store writes: about 1% false
// positives (0.82% with 7 probes).
const BitsPerKey = 10

// MaxProbes bounds a filter's probe count.
const MaxProbes = 30

// maxBytes bounds a filter's bit array: m = 8n must stay at most 2^32.
const maxBytes = 1 << 29

// header is the version and probe count before the bits.
const header = 2

// Hash returns the hash of key that a filter's probes derive from.
func Hash(key []byte) uint64 {
	h := uint64(0xcbf29ce484222325)
	for _, c := range key {
		h ^= uint64(c)
		h *= 0x100000001b3
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// Build returns the filter of the keys whose hashes are hashes (Hash),
// at bitsPerKey bits per key (at least 1).
func Build(hashes []uint64, bitsPerKey int) []byte {
	bitsPerKey = max(bitsPerKey, 1)
	n := min(max((len(hashes)*bitsPerKey+7)/8, 1), maxBytes)
	probes := min(max(int(math.Round(float64(bitsPerKey)*math.Ln2)), 1), MaxProbes)
	b := make([]byte, header+n)
	b[0], b[1] = Version, byte(probes)
	f := Filter{probes: uint32(probes), bits: b[header:], m: uint64(8 * n)}
	for _, h := range hashes {
		f.add(h)
	}
	return b
}

// Filter is a decoded filter; its zero value lets every key pass.
type Filter struct {
	probes uint32
	bits   []byte // aliases the bytes decoded
	m      uint64 // 8 * len(bits)
}

// Decode returns the filter b holds (aliasing b).
func Decode(b []byte) (Filter, error) {
	if len(b) < header+1 {
		return Filter{}, fmt.Errorf("%w: filter of %d bytes", blockenc.ErrCorrupt, len(b))
	}
	if b[0] != Version {
		return Filter{}, fmt.Errorf("%w: filter version %d (this version reads %d)", blockenc.ErrCorrupt, b[0], Version)
	}
	if b[1] < 1 || b[1] > MaxProbes {
		return Filter{}, fmt.Errorf("%w: filter with %d probes (1 to %d)", blockenc.ErrCorrupt, b[1], MaxProbes)
	}
	if len(b)-header > maxBytes {
		return Filter{}, fmt.Errorf("%w: filter of %d bytes (at most %d)", blockenc.ErrCorrupt, len(b), header+maxBytes)
	}
	return Filter{probes: uint32(b[1]), bits: b[header:], m: uint64(8 * (len(b) - header))}, nil
}

// IsZero reports whether f is the zero Filter (no filter: every key
// passes).
func (f Filter) IsZero() bool { return f.m == 0 }

// MayContain reports whether the key whose hash is h (Hash) may be among
// f's keys: false means it is not.
func (f Filter) MayContain(h uint64) bool {
	if f.m == 0 {
		return true
	}
	h1, h2 := uint32(h), uint32(h>>32)
	for j := uint32(0); j < f.probes; j++ {
		bit := (uint64(h1+j*h2) * f.m) >> 32
		if f.bits[bit>>3]&(1<<(bit&7)) == 0 {
			return false
		}
	}
	return true
}

func (f Filter) add(h uint64) {
	h1, h2 := uint32(h), uint32(h>>32)
	for j := uint32(0); j < f.probes; j++ {
		bit := (uint64(h1+j*h2) * f.m) >> 32
		f.bits[bit>>3] |= 1 << (bit & 7)
	}
}
