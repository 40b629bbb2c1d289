package blockenc_test

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
)

// floatSeries returns ALP's sample files (blockenc/shapeshift/testdata/alp)
// named by files as time series cells: key = file index u16 | 8-byte
// big-endian timestamp 15 s apart, value = the reading as enc says:
// "f64be" (8 bytes, big-endian float64), "f32le" (4 bytes, little-endian
// float32) or "text" (the CSV's own text, which is decimal text for most
// files).
func floatSeries(tb testing.TB, files []string, enc string) []blockenc.Cell {
	var cells []blockenc.Cell
	for fi, name := range files {
		b, err := os.ReadFile(filepath.Join("shapeshift", "testdata", "alp", name+".csv"))
		if err != nil {
			tb.Fatal(err)
		}
		for i, line := range strings.Fields(string(b)) {
			v, err := strconv.ParseFloat(line, 64)
			if err != nil {
				tb.Fatal(err)
			}
			k := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint16(nil, uint16(fi)), uint64(1_700_000_000_000+15_000*i))
			var val []byte
			switch enc {
			case "f64be":
				val = binary.BigEndian.AppendUint64(nil, math.Float64bits(v))
			case "f32le":
				val = binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(v)))
			default:
				val = []byte(line)
			}
			cells = append(cells, blockenc.Cell{Key: k, Value: val, Seq: 1<<30 + uint64(len(cells)), Kind: blockenc.KindPut})
		}
	}
	return cells
}

// floatBenchFiles are the ALP files of BenchmarkColumnarFloats: smooth
// sensor series, prices, and coordinates that are not decimals.
var floatBenchFiles = []string{"city_temperature_f", "neon_air_pressure", "stocks_usa_c", "bitcoin_f", "poi_lat"}

// BenchmarkColumnarFloats: float readings as Columnar values, one block
// per ALP file (1,024 cells), in each value encoding; B/cell is the
// block's size per cell (keys and seqs included), and the ops encode the
// blocks and scan them.
func BenchmarkColumnarFloats(b *testing.B) {
	opts := blockenc.Options{Encoding: blockenc.Columnar}
	for _, enc := range []string{"f64be", "f32le", "text"} {
		for _, name := range floatBenchFiles {
			cells := floatSeries(b, []string{name}, enc)
			block := encode(b, opts, cells)
			perCell := float64(len(block)) / float64(len(cells))
			b.Run("values="+enc+"/file="+name+"/op=encode", func(b *testing.B) {
				benchEncode(b, opts, cells)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(cells)), "ns/cell")
				b.ReportMetric(perCell, "B/cell")
			})
			b.Run("values="+enc+"/file="+name+"/op=scan", func(b *testing.B) {
				b.ReportAllocs()
				var s blockenc.Seeker
				for b.Loop() {
					if err := s.Init(block); err != nil {
						b.Fatal(err)
					}
					for ok := s.First(); ok; ok = s.Next() {
						sinkInt += len(s.Value())
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(cells)), "ns/cell")
				b.ReportMetric(perCell, "B/cell")
			})
		}
	}
}
