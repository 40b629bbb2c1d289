package inspect

import (
	"encoding/binary"

	"github.com/kvenc/kvenc/kv/internal/layout"
)

// keys parses the keys of kv's key layout (package layout) under a
// prefix: the ids and seqs they hold after the namespace and the tag.
type keys struct{ layout.Keys }

func newKeys(prefix []byte) keys { return keys{layout.NewKeys(prefix)} }

// id returns the big-endian u64 after the namespace and the tag.
func (k keys) id(key []byte) uint64 { return binary.BigEndian.Uint64(key[len(k.NS)+1:]) }

// meta parses a meta key: its segment id.
func (k keys) meta(key []byte) (uint64, bool) {
	if !k.Own(key) || key[len(k.NS)] != layout.TagMeta {
		return 0, false
	}
	return k.id(key), true
}

// block parses a block key: its segment id and the block's last key.
func (k keys) block(key []byte) (uint64, []byte, bool) {
	if !k.Own(key) || key[len(k.NS)] != layout.TagSegment {
		return 0, nil, false
	}
	return k.id(key), key[len(k.NS)+1+8:], true
}

// run parses a dictionary or key filter key (tag): its segment id and
// part or run.
func (k keys) run(key []byte, tag byte) (uint64, uint32, bool) {
	if !k.Own(key) || key[len(k.NS)] != tag {
		return 0, 0, false
	}
	id, n := k.ParseRun(key)
	return id, n, true
}

// wal parses a WAL key: its seq.
func (k keys) wal(key []byte) (uint64, bool) {
	if !k.IsWAL(key) {
		return 0, false
	}
	return k.id(key), true
}
