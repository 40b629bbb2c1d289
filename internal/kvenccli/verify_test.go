package kvenccli

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/kv"
)

// walGolden is kv's pinned WAL file: one record, seq 300 (Put "apple",
// Delete "pear", DeleteRange ["b", "d")).
const walGolden = "../../kv/internal/wal/testdata/walfile-v1.bin"

var (
	testStoreOnce sync.Once
	testStoreDir  string
	testStoreErr  error
)

// testStore returns a new directory holding a copy of one store: two
// segments (the second with deletes and a range tombstone) of blocks cut
// at 1 KiB, and a WAL file of two records above them (kv's golden record
// twice).
func testStore(t *testing.T) string {
	t.Helper()
	testStoreOnce.Do(func() {
		testStoreDir, testStoreErr = os.MkdirTemp("", "kvenc-teststore")
		if testStoreErr == nil {
			testStoreErr = buildTestStore(testStoreDir)
		}
	})
	require.NoError(t, testStoreErr)
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(testStoreDir)))
	return dir
}

// buildTestStore writes testStore's store in dir.
func buildTestStore(dir string) (err error) {
	t := &collectT{}
	defer func() {
		if r := recover(); r != nil && r != any(t) {
			panic(r)
		}
		if t.err != nil {
			err = t.err
		}
	}()
	o := kv.DefaultOptions(dir)
	o.BlockSize = 1 << 10
	o.MemstoreSize = 64 << 10
	o.CompactionTrigger = -1
	s, err := kv.Open(o)
	require.NoError(t, err)
	for b := range 10 {
		batch := s.NewBatch()
		for i := range 200 {
			n := b*200 + i
			batch.Put(fmt.Appendf(nil, "row%06d", n), fmt.Appendf(nil, "value %d of row %d|%s", n%17, n, "some text that repeats"))
		}
		require.NoError(t, s.Apply(batch))
	}
	require.NoError(t, s.Flush())
	batch := s.NewBatch()
	for n := 0; n < 2000; n += 7 {
		if n%3 == 0 {
			batch.Delete(fmt.Appendf(nil, "row%06d", n))
		} else {
			batch.Put(fmt.Appendf(nil, "row%06d", n), []byte("updated"))
		}
	}
	batch.DeleteRange([]byte("row000100"), []byte("row000150"))
	require.NoError(t, s.Apply(batch))
	require.NoError(t, s.Close())

	rec, err := os.ReadFile(walGolden)
	require.NoError(t, err)
	frame := rec[len("kvencWAL")+1:]
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wal", "00000000000000ff.log"), append(rec, frame...), 0o644))
	return nil
}

// collectT is the require.TestingT of buildTestStore, which runs once
// for every test: a failure becomes its error.
type collectT struct{ err error }

func (c *collectT) Errorf(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf(format, args...)
	}
}

func (c *collectT) FailNow() { panic(c) }

// editBadger runs f on the store's Badger DB opened read-write.
func editBadger(t *testing.T, dir string, f func(txn *badger.Txn) error) {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	require.NoError(t, err)
	require.NoError(t, db.Update(f))
	require.NoError(t, db.Close())
}

// storeKeys returns the Badger keys of the store's blocks and metas
// (prefix "kv").
func storeKeys(t *testing.T, dir string) (blocks, metas [][]byte) {
	k := storeKeysByTag(t, dir)
	return k['s'], k['m']
}

// storeKeysByTag returns the Badger keys of the store (prefix "kv") by
// their tag.
func storeKeysByTag(t *testing.T, dir string) map[byte][][]byte {
	t.Helper()
	keys := map[byte][][]byte{}
	editBadger(t, dir, func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte("kv\x00")})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().KeyCopy(nil)
			keys[k[3]] = append(keys[k[3]], k)
		}
		return nil
	})
	return keys
}

// flipByte flips one bit of byte at (from the end when at < 0) of the
// value of key.
func flipByte(t *testing.T, dir string, key []byte, at int) {
	editBadger(t, dir, func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		require.NoError(t, err)
		v, err := item.ValueCopy(nil)
		require.NoError(t, err)
		if at < 0 {
			at += len(v)
		}
		v[at] ^= 0x10
		return txn.Set(key, v)
	})
}

func TestVerifyClean(t *testing.T) {
	dir := testStore(t)
	code, out, stderr := runCmd("verify", dir)
	require.Equal(t, exitOK, code, out+stderr)
	// 2000 puts, then 286 operations of which the batch's DeleteRange
	// drops the 7 in its range: 2279 cells.
	assert.Regexp(t, `store .* prefix "kv", key layout 2: 2 segments, \d+ blocks, 2279 cells; 1 WAL files \(2 records\), 0 WAL records in Badger`, out)
	assert.Contains(t, out, "\nok\n")
	code, out, _ = runCmd("verify", dir, "--prefix", "kv")
	assert.Equal(t, exitOK, code, out)
}

// TestVerifyFindsCorruption plants each corruption in a fresh store and
// checks that verify names it and exits with status 1.
func TestVerifyFindsCorruption(t *testing.T) {
	keys := storeKeysByTag(t, testStore(t))
	blocks, metas, filters := keys['s'], keys['m'], keys['f']
	require.Greater(t, len(blocks), 10)
	require.Len(t, metas, 2)
	require.NotEmpty(t, filters, "the newer segment's key filter (the oldest has none)")
	segOf := func(k []byte) uint64 { return binary.BigEndian.Uint64(k[4:12]) }
	blockIndex := func(i int) int { // the index of blocks[i] in its segment
		n := 0
		for j := i - 1; j >= 0 && segOf(blocks[j]) == segOf(blocks[i]); j-- {
			n++
		}
		return n
	}
	type plant struct {
		name string
		do   func(t *testing.T, dir string)
		want string // a regexp the output must match
	}
	var plants []plant
	for _, i := range []int{0, len(blocks) / 2, len(blocks) - 1} {
		for _, at := range []int{0, 1, 2, 7, 100, -5, -1} {
			i, at := i, at
			plants = append(plants, plant{
				name: fmt.Sprintf("block%d-byte%d", i, at),
				do:   func(t *testing.T, dir string) { flipByte(t, dir, blocks[i], at) },
				want: fmt.Sprintf(`PROBLEM segment %d block %d \(key "row\d+", \d+ bytes\): blockenc: corrupt block`, segOf(blocks[i]), blockIndex(i)),
			})
		}
	}
	for m, key := range metas {
		for _, at := range []int{0, 5, 40, -5, -1} {
			key, at := key, at
			plants = append(plants, plant{
				name: fmt.Sprintf("meta%d-byte%d", m, at),
				do:   func(t *testing.T, dir string) { flipByte(t, dir, key, at) },
				want: fmt.Sprintf(`PROBLEM segment %d: meta: .*segment meta offset \d+: checksum`, segOf(key)),
			})
		}
	}
	for f, key := range []([]byte){filters[0], filters[len(filters)-1]} {
		for _, at := range []int{0, 1, 2, -1} {
			key, at := key, at
			plants = append(plants, plant{
				name: fmt.Sprintf("filter%d-byte%d", f, at),
				do:   func(t *testing.T, dir string) { flipByte(t, dir, key, at) },
				want: fmt.Sprintf(`PROBLEM segment %d: key filter \d+: .*corrupt block: key filter of \d+ bytes, CRC-32C`, segOf(key)),
			})
		}
		plants = append(plants, plant{
			name: fmt.Sprintf("missing-filter%d", f),
			do: func(t *testing.T, dir string) {
				editBadger(t, dir, func(txn *badger.Txn) error { return txn.Delete(key) })
			},
			want: fmt.Sprintf(`PROBLEM segment %d: .*corrupt block: segment %d key filter \d+ of \d+ bytes missing`, segOf(key), segOf(key)),
		})
	}
	for _, i := range []int{0, len(blocks) / 2, len(blocks) - 1} {
		i := i
		plants = append(plants, plant{
			name: fmt.Sprintf("missing-block%d", i),
			do: func(t *testing.T, dir string) {
				editBadger(t, dir, func(txn *badger.Txn) error { return txn.Delete(blocks[i]) })
			},
			want: fmt.Sprintf(`PROBLEM segment %d: kvenc: corrupt store: 1 of \d+ blocks missing`, segOf(blocks[i])),
		})
	}
	// The magic, the version, the first frame's length (its low byte: a
	// length past the file's end is a torn last frame to kv, as to
	// verify) and its record.
	for _, at := range []int{0, 8, 9, 20, 40} {
		at := at
		plants = append(plants, plant{
			name: fmt.Sprintf("wal-byte%d", at),
			do: func(t *testing.T, dir string) {
				path := filepath.Join(dir, "wal", "00000000000000ff.log")
				b, err := os.ReadFile(path)
				require.NoError(t, err)
				b[at] ^= 0x10
				require.NoError(t, os.WriteFile(path, b, 0o644))
			},
			want: `PROBLEM wal/00000000000000ff.log: .*(offset|version|magic)`,
		})
	}
	for _, p := range plants {
		t.Run(p.name, func(t *testing.T) {
			dir := testStore(t)
			p.do(t, dir)
			code, out, stderr := runCmd("verify", dir)
			assert.Equal(t, exitFound, code, out)
			assert.Regexp(t, p.want, out)
			assert.Contains(t, out, "  repair: ")
			assert.Contains(t, stderr, "problems found")
		})
	}
}

// TestVerifyTornWAL: a last frame cut short is a write that never
// completed: a note, not a problem.
func TestVerifyTornWAL(t *testing.T) {
	dir := testStore(t)
	path := filepath.Join(dir, "wal", "00000000000000ff.log")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b[:len(b)-3], 0o644))
	code, out, _ := runCmd("verify", dir)
	assert.Equal(t, exitOK, code, out)
	assert.Contains(t, out, "note: wal/00000000000000ff.log: its last 37 bytes are a frame cut short")
}

// TestOpenErrors: what is not a store, a store open elsewhere, and format
// versions this kvenc does not know are named so.
func TestOpenErrors(t *testing.T) {
	code, _, stderr := runCmd("verify", filepath.Join(t.TempDir(), "nope"))
	assert.Equal(t, exitFound, code)
	assert.Contains(t, stderr, "not a kvenc store: ")
	assert.Contains(t, stderr, "is not a directory")

	code, _, stderr = runCmd("verify", t.TempDir())
	assert.Equal(t, exitFound, code)
	assert.Contains(t, stderr, "holds no Badger DB")

	plain := makeBadger(t, 10)
	code, _, stderr = runCmd("verify", plain)
	assert.Equal(t, exitFound, code)
	assert.Contains(t, stderr, "not a kvenc store: no kvenc registry entry")

	dir := testStore(t)
	code, _, stderr = runCmd("verify", dir, "--prefix", "other")
	assert.Equal(t, exitFound, code)
	assert.Contains(t, stderr, `not a kvenc store: no kvenc store with prefix "other" (its stores: "kv")`)

	s, err := kv.Open(kv.DefaultOptions(dir))
	require.NoError(t, err)
	code, _, stderr = runCmd("verify", dir)
	require.NoError(t, s.Close())
	assert.Equal(t, exitFound, code)
	assert.Contains(t, stderr, "is open in another process")

	editBadger(t, dir, func(txn *badger.Txn) error {
		return txn.Set([]byte("\xffkvenc/store/kv"), []byte{3})
	})
	code, _, stderr = runCmd("verify", dir)
	assert.Equal(t, exitFound, code)
	assert.Contains(t, stderr, "unsupported store format: the registry entry of prefix \"kv\" says key layout 03")

	dir = testStore(t)
	_, metas := storeKeys(t, dir)
	editBadger(t, dir, func(txn *badger.Txn) error { // a meta of version 9 with a good checksum
		item, err := txn.Get(metas[0])
		require.NoError(t, err)
		v, err := item.ValueCopy(nil)
		require.NoError(t, err)
		v[0] = 9
		body := v[:len(v)-4]
		binary.LittleEndian.PutUint32(v[len(body):], crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
		return txn.Set(metas[0], v)
	})
	code, out, _ := runCmd("verify", dir)
	assert.Equal(t, exitFound, code)
	assert.Regexp(t, regexp.QuoteMeta("unsupported store format: segment meta version 9 (this kvenc reads 1 to 6)"), out)
}

func TestMain(m *testing.M) {
	code := m.Run()
	if testStoreDir != "" {
		os.RemoveAll(testStoreDir)
	}
	os.Exit(code)
}
