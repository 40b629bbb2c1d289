package kvenccli

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files in testdata")

// blockenc's golden blocks and the Dicts of those that need one (their
// bytes as blockenc's golden tests make them).
const blockTestdata = "../../blockenc/testdata"

var goldenDicts = map[string]string{
	"none-dict":        "value-value-value user",
	"columnar-dict":    "furiously quickly carefully blithely slyly",
	"columnar-dict-v4": "furiously quickly carefully blithely slyly",
}

// TestGoldenBlock pins kvenc block's output on every golden block of
// blockenc (testdata/block/*.txt; -rewrite regenerates them).
func TestGoldenBlock(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(blockTestdata, "*.block"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".block")
		t.Run(name, func(t *testing.T) {
			args := []string{"block", f}
			if d, ok := goldenDicts[name]; ok {
				path := filepath.Join(t.TempDir(), "dict")
				require.NoError(t, os.WriteFile(path, []byte(d), 0o644))
				args = append(args, "--dict", path)
			}
			code, out, stderr := runCmd(args...)
			require.Equal(t, exitOK, code, stderr)
			out = strings.ReplaceAll(out, f, name+".block")
			golden := filepath.Join("testdata", "block", name+".txt")
			if *rewrite {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, []byte(out), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			require.Equal(t, string(want), out)
		})
	}
}

// docSection returns the hex of the lines of a worked example in a
// package doc: the lines after the one starting with header, up to the
// next blank line, each with its spaces removed.
func docSection(t *testing.T, path, header string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(string(src), "\n")
	hexRun := regexp.MustCompile(`^//\t([0-9a-f]{2}[0-9a-f ]*?)(\s{2,}|$)`)
	for i, l := range lines {
		if !strings.HasPrefix(l, "// "+header) {
			continue
		}
		var out []string
		for _, l := range lines[i+1:] {
			if l == "//" && len(out) > 0 {
				break
			}
			if m := hexRun.FindStringSubmatch(l); m != nil {
				out = append(out, strings.ReplaceAll(m[1], " ", ""))
			}
		}
		return out
	}
	t.Fatalf("%s: no section %q", path, header)
	return nil
}

// layoutLines returns the hex of each top-level line of kvenc block's
// output (not the lines of decompressed cells), spaces removed.
func layoutLines(out string) []string {
	line := regexp.MustCompile(`^\s*[0-9a-f]{4,}  ([0-9a-f. ]+?)(\s{2,}|\s*$)`)
	var hexes []string
	for _, l := range strings.Split(out, "\n") {
		if m := line.FindStringSubmatch(l); m != nil {
			hexes = append(hexes, strings.ReplaceAll(m[1], " ", ""))
		}
	}
	return hexes
}

// TestBlockAsTheDocDrawsIt: kvenc block cuts the worked examples of
// blockenc's doc (and internal/rowblk's) into the lines the docs draw.
func TestBlockAsTheDocDrawsIt(t *testing.T) {
	hexCutAt = 1 << 30
	defer func() { hexCutAt = 24 }()
	for _, tc := range []struct{ block, doc, header string }{
		{"prefix", "../../blockenc/doc.go", "Prefix (63 bytes)"},
		{"fastdiff", "../../blockenc/doc.go", "FastDiff (53 bytes)"},
		{"rowindex", "../../blockenc/doc.go", "RowIndex, interval 2 (81 bytes)"},
		{"none", "../../blockenc/internal/rowblk/doc.go", "None (72 bytes)"},
		{"diff", "../../blockenc/internal/rowblk/doc.go", "Diff (63 bytes)"},
		{"prefix-dedupe", "../../blockenc/internal/rowblk/doc.go", "Value dedupe, Prefix"},
	} {
		want := docSection(t, tc.doc, tc.header)
		require.NotEmpty(t, want, tc.block)
		code, out, stderr := runCmd("block", filepath.Join(blockTestdata, tc.block+".block"))
		require.Equal(t, exitOK, code, stderr)
		assert.Equal(t, want, layoutLines(out), tc.block)
	}
}

// shown returns the bytes of the top-level lines of a layout, in order.
func shown(t *testing.T, out string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(layoutLines(out), ""))
	require.NoError(t, err, out)
	return b
}

// TestLayoutShowsEveryByte: on blocks of every encoding and option,
// written by blockenc's Encoder from random cells, the layout walks
// without an error and shows every byte of the block once, in order.
func TestLayoutShowsEveryByte(t *testing.T) {
	hexCutAt = 1 << 30
	defer func() { hexCutAt = 24 }()
	rng := rand.New(rand.NewPCG(7, 8))
	dict, err := blockenc.NewDict([]byte(strings.Repeat("value of the cell ", 20)))
	require.NoError(t, err)
	for trial := range 40 {
		n := 1 + rng.IntN(300)
		cells := make([]blockenc.Cell, 0, n)
		fixed := rng.IntN(2) == 0
		for i := range n {
			k := fmt.Appendf(nil, "key/%06d", i*3+rng.IntN(3))
			if !fixed && rng.IntN(3) == 0 {
				k = append(k, "/more"[:rng.IntN(5)]...)
			}
			v := fmt.Appendf(nil, "value of the cell %d", rng.IntN(20))
			switch trial % 4 {
			case 1:
				v = []byte{0, 0, 0, byte(rng.IntN(256)), 0, 0, 1, byte(i)} // 8-byte integers
			case 2:
				v = v[:rng.IntN(len(v))]
			}
			kind := blockenc.KindPut
			if rng.IntN(10) == 0 {
				kind = blockenc.KindDelete
			}
			cells = append(cells, blockenc.Cell{Key: k, Value: v, Seq: uint64(1000 + rng.IntN(1<<20)), Kind: kind})
		}
		for _, enc := range blockenc.Encodings() {
			for _, comp := range blockenc.Compressions() {
				for _, d := range []*blockenc.Dict{nil, dict} {
					if d != nil && comp != blockenc.LZ4Dict {
						continue
					}
					o := blockenc.Options{Encoding: enc, Compression: comp, RestartInterval: 1 + rng.IntN(20), DedupeValues: rng.IntN(2) == 0, IntValues: rng.IntN(2) == 0, Dict: d}
					e := blockenc.NewEncoder(o)
					for _, c := range cells {
						require.NoError(t, e.Add(c))
					}
					block, err := e.Finish()
					require.NoError(t, err)
					var out bytes.Buffer
					require.NoError(t, showBlock(&out, "b", block, d), "%+v", o)
					if got := shown(t, out.String()); !bytes.Equal(block, got) {
						i := 0
						for i < len(got) && i < len(block) && got[i] == block[i] {
							i++
						}
						t.Fatalf("%+v: the layout shows %d bytes of %d, the first different at offset %d", o, len(got), len(block), i)
					}
					require.Contains(t, out.String(), "verify: ok")
				}
			}
		}
	}
}

// TestBlockCorrupt: a block with a flipped byte is reported (exit 1)
// with what Verify says, after the lines the walk could print.
func TestBlockCorrupt(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(blockTestdata, "prefix.block"))
	require.NoError(t, err)
	b[20] ^= 0x40
	path := filepath.Join(t.TempDir(), "bad.block")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	code, out, stderr := runCmd("block", path)
	assert.Equal(t, exitFound, code)
	assert.Contains(t, out, "verify: blockenc: corrupt block")
	assert.Contains(t, stderr, "checksum")

	code, _, stderr = runCmd("block", path, "extra")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "want one block file")
}

// FuzzLayout: any bytes walk without a panic; a block Verify accepts
// walks without an error and shows every byte.
func FuzzLayout(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(blockTestdata, "*.block"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var out bytes.Buffer
		err := printLayout(&out, b, nil)
		if blockenc.Verify(b) == nil {
			require.NoError(t, err)
		}
	})
}

// TestBlockFloatValues checks the values kvenc block prints for the float
// and decimal text forms against the cells blockenc's Seeker reads from
// the same golden blocks.
func TestBlockFloatValues(t *testing.T) {
	decode := map[string]func(v []byte) string{
		"columnar-float64": func(v []byte) string {
			return fmt.Sprint(math.Float64frombits(binary.BigEndian.Uint64(v)))
		},
		"columnar-float32le": func(v []byte) string {
			return fmt.Sprint(math.Float32frombits(binary.LittleEndian.Uint32(v)))
		},
		"columnar-text":       func(v []byte) string { return strconv.Quote(string(v)) },
		"columnar-text-point": func(v []byte) string { return strconv.Quote(string(v)) },
	}
	for name, f := range decode {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(blockTestdata, name+".block")
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			s, err := blockenc.NewSeeker(b)
			require.NoError(t, err)
			var want []string
			for ok := s.First(); ok && len(want) < 8; ok = s.Next() {
				want = append(want, fmt.Sprintf("value %d: %s", len(want), f(s.Value())))
			}
			require.NoError(t, s.Err())
			require.Len(t, want, 8)
			code, out, stderr := runCmd("block", path)
			require.Equal(t, exitOK, code, stderr)
			var got []string
			for _, l := range strings.Split(out, "\n") {
				if l = strings.TrimSpace(l); strings.HasPrefix(l, "value ") {
					got = append(got, l)
				}
			}
			require.Equal(t, want, got)
		})
	}
}
