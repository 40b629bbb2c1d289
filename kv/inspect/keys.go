package inspect

import (
	"encoding/binary"

	"github.com/kvenc/kvenc/kv"
)

// keys is kv's key layout 2 under a prefix P: N = P + Separator, then a
// tag (kv's doc, Badger key layout).
type keys struct{ ns []byte }

// Tags after the namespace (part of the format).
const (
	tagWAL     = 'w' // N 'w' seq u64 BE chunk u16 BE -> WAL record chunk
	tagSegment = 's' // N 's' segment id u64 BE last key -> block
	tagMeta    = 'm' // N 'm' segment id u64 BE -> segment meta
)

func newKeys(prefix []byte) keys {
	return keys{ns: append(append([]byte(nil), prefix...), kv.Separator)}
}

func (k keys) tag(t byte) []byte { return append(append([]byte(nil), k.ns...), t) }

// meta parses a meta key: its segment id.
func (k keys) meta(key []byte) (uint64, bool) {
	if len(key) != len(k.ns)+1+8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(key[len(k.ns)+1:]), true
}

// block parses a block key: its segment id and the block's last key.
func (k keys) block(key []byte) (uint64, []byte, bool) {
	if len(key) < len(k.ns)+1+8 {
		return 0, nil, false
	}
	return binary.BigEndian.Uint64(key[len(k.ns)+1:]), key[len(k.ns)+1+8:], true
}

// wal parses a WAL key: its seq and chunk.
func (k keys) wal(key []byte) (uint64, uint16, bool) {
	if len(key) != len(k.ns)+1+8+2 {
		return 0, 0, false
	}
	p := len(k.ns) + 1
	return binary.BigEndian.Uint64(key[p:]), binary.BigEndian.Uint16(key[p+8:]), true
}
