package kvenccli

import (
	"github.com/pierrec/lz4/v4"

	"github.com/kvenc/kvenc/blockenc"
)

// dictID walks the ID of the external Dict a block was compressed against
// and returns the Dict's bytes, or nil when d is not that Dict.
func (w *walker) dictID(d *blockenc.Dict, head string) []byte {
	id := w.u32()
	w.line("%sagainst the Dict of ID %#08x", head, id)
	if d == nil || d.ID() != id {
		w.note("(no Dict of this ID given: the sub-blocks are not decompressed)")
		return nil
	}
	return d.Bytes()
}

// subBlocks walks LZ4Dict sub-blocks (internal/lz4area's layout):
//
//	nsub uv | entry * nsub | data
//	entry := rawlen uv | complen uv | [crc u32] | [first uv | klen uv | key]
//
// with crc when crc is set and the key part, for every sub-block but the
// first, when keyed is. It calls each with every sub-block decompressed:
// with ext every one against dict (none when dict is nil: a Dict not
// given), else the first alone and the later ones against it.
func (w *walker) subBlocks(keyed, crc, ext bool, dict []byte, each func(i int, last bool, raw []byte)) {
	nsub := w.uv()
	w.line("%d sub-blocks", nsub)
	type sub struct{ raw, comp int }
	subs := make([]sub, 0, min(nsub, 1024))
	for i := 0; i < nsub && w.err == nil; i++ {
		s := sub{raw: w.uv(), comp: w.uv()}
		switch {
		case crc:
			w.line("%d: %d bytes in %d, CRC-32C %#08x", i, s.raw, s.comp, w.u32())
		case keyed && i > 0:
			first, klen := w.uv(), w.uv()
			w.line("%d: %d bytes in %d, from cell %d, key %s", i, s.raw, s.comp, first, quote(w.take(klen)))
		default:
			w.line("%d: %d bytes in %d", i, s.raw, s.comp)
		}
		subs = append(subs, s)
	}
	for i, s := range subs {
		src := w.take(s.comp)
		w.line("sub-block %d data", i)
		if w.err == nil && !lz4Fits(s.raw, s.comp) {
			w.fail("sub-block %d: %d bytes cannot come from %d LZ4 bytes", i, s.raw, s.comp)
		}
		if w.err != nil {
			return
		}
		if ext && dict == nil {
			continue
		}
		dst := make([]byte, s.raw)
		if s.comp == s.raw {
			copy(dst, src)
		} else if n, err := lz4.UncompressBlockWithDict(src, dst, dict); err != nil || n != s.raw {
			w.fail("sub-block %d does not decompress to %d bytes", i, s.raw)
			return
		}
		if i == 0 && !ext {
			dict = dst
		}
		each(i, i == len(subs)-1, dst)
		if w.err != nil {
			return
		}
	}
}
