package kv

import "encoding/binary"

// Badger key tags after the prefix. Part of the format, never reuse.
const (
	tagWAL     byte = 'w' // P+'w'+seq u64 BE+chunk u16 BE -> WAL record chunk
	tagSegment byte = 's' // P+'s'+segment id u64 BE+last key of block -> block
	tagMeta    byte = 'm' // P+'m'+segment id u64 BE -> segment meta
)

// keys builds the Badger keys of one Store.
type keys struct{ prefix []byte }

func (k keys) tag(t byte) []byte {
	b := make([]byte, 0, len(k.prefix)+1)
	return append(append(b, k.prefix...), t)
}

func (k keys) wal(seq uint64, chunk uint16) []byte {
	b := make([]byte, 0, len(k.prefix)+11)
	b = append(append(b, k.prefix...), tagWAL)
	b = binary.BigEndian.AppendUint64(b, seq)
	return binary.BigEndian.AppendUint16(b, chunk)
}

// segment returns P+'s'+id; append a block's last key for the block key.
func (k keys) segment(id uint64) []byte {
	b := make([]byte, 0, len(k.prefix)+9)
	b = append(append(b, k.prefix...), tagSegment)
	return binary.BigEndian.AppendUint64(b, id)
}

func (k keys) block(id uint64, lastKey []byte) []byte {
	return append(k.segment(id), lastKey...)
}

func (k keys) meta(id uint64) []byte {
	b := make([]byte, 0, len(k.prefix)+9)
	b = append(append(b, k.prefix...), tagMeta)
	return binary.BigEndian.AppendUint64(b, id)
}
