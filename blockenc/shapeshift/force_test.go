package shapeshift

import "github.com/pierrec/lz4/v4"

// forceChunk encodes v as one chunk body of form f, bypassing selection.
// ok is false when f cannot represent v.
func forceChunk(v []int64, f Form) (body []byte, ok bool) {
	e := new(encoder)
	m := measure(v)
	rb := bitLen(uint64(m.max - m.min))
	ch := choice{form: f, w: byteWidth(rb), rb: rb, db: bitLen(uint64(m.dmax - m.dmin)), lw: 1}
	if m.longest > 256 {
		ch.lw = 2
	}
	switch f {
	case Zero:
		ok = m.min == 0 && m.max == 0
	case Constant:
		ok = m.min == m.max
	case BitPack:
		ok = rb > 0
	case Patched:
		ch.pb = rb / 2
		for _, x := range v {
			if uint64(x-m.min)>>uint(ch.pb) != 0 {
				ch.pe++
			}
		}
		ok = ch.pe >= 1 && ch.pe < len(v)
	case PatchedDelta:
		ch.dpb = ch.db / 2
		for i := 1; i < len(v); i++ {
			if uint64(v[i]-v[i-1]-m.dmin)>>uint(ch.dpb) != 0 {
				ch.dpe++
			}
		}
		ok = ch.db >= 1 && ch.dpe >= 1 && ch.dpe <= len(v)-2
	case LZ4:
		packed := putBytePack(nil, v, m.min, ch.w)[:len(v)*ch.w]
		e.lz = make([]byte, lz4.CompressBlockBound(len(packed)))
		k, err := e.comp.CompressBlock(packed, e.lz)
		ch.lzSize = k
		ok = err == nil && k > 0
	default:
		ok = true
	}
	if !ok {
		return nil, false
	}
	e.write(v, m, ch)
	return e.body, true
}

// encodeForced encodes values with every chunk forced into form f (chunks
// that f cannot represent fall back to normal selection).
func encodeForced(values []int64, f Form, logChunk int) []byte {
	size := 1 << logChunk
	dst := appendHeader(nil, len(values), logChunk, 1)
	var comp [numForms]int
	var ends []uint32
	var body []byte
	e := new(encoder)
	for lo := 0; lo < len(values); lo += size {
		v := values[lo:min(lo+size, len(values))]
		b, ok := forceChunk(v, f)
		if !ok {
			e.body = e.body[:0]
			e.encodeChunk(v)
			b = e.body
		}
		comp[b[0]]++
		body = append(body, b...)
		ends = append(ends, uint32(len(body)))
	}
	return appendColumn(dst, 0, &comp, ends, body)
}
