package lz4dict

import (
	"fmt"
	"math/rand/v2"
)

// tpchWords is a small vocabulary in the style of TPC-H's comment columns.
var tpchWords = []string{
	"furiously", "quickly", "carefully", "blithely", "slyly", "fluffily", "regular",
	"final", "express", "ironic", "pending", "special", "bold", "even", "silent",
	"deposits", "packages", "accounts", "requests", "instructions", "theodolites",
	"pinto", "beans", "foxes", "ideas", "platelets", "asymptotes", "dependencies",
	"sleep", "haggle", "nag", "wake", "cajole", "boost", "detect", "integrate",
	"use", "print", "among", "above", "after", "across", "against", "along", "the",
}

// textData returns text-like inputs from fixed seeds, each n bytes long:
//
//   - comments: TPC-H-like comment sentences, 2..9 random words from
//     tpchWords then a period, one sentence after another;
//   - dates: ASCII dates "1992-01-01".."1998-12-28" in random order, each
//     followed by '|' (a column of dates as a row block stores them);
//   - keybytes: sorted key-like records, a 1-byte table id of 4, a
//     big-endian 4-byte id growing by a random step, and 8 random bytes
//     from a 16-letter alphabet, each record 13 bytes.
func textData(n int) map[string][]byte {
	r := rand.New(rand.NewPCG(4, 2))
	var comments []byte
	for len(comments) < n {
		k := 2 + r.IntN(8)
		for i := 0; i < k; i++ {
			if i > 0 {
				comments = append(comments, ' ')
			}
			comments = append(comments, tpchWords[r.IntN(len(tpchWords))]...)
		}
		comments = append(comments, ". "...)
	}
	var dates []byte
	for len(dates) < n {
		dates = fmt.Appendf(dates, "%04d-%02d-%02d|", 1992+r.IntN(7), 1+r.IntN(12), 1+r.IntN(28))
	}
	var keys []byte
	id := uint32(0)
	for len(keys) < n {
		id += 1 + uint32(r.IntN(40))
		keys = append(keys, byte(r.IntN(4)), byte(id>>24), byte(id>>16), byte(id>>8), byte(id))
		for i := 0; i < 8; i++ {
			keys = append(keys, "abcdefghijklmnop"[r.IntN(16)])
		}
	}
	return map[string][]byte{"comments": comments[:n], "dates": dates[:n], "keybytes": keys[:n]}
}

// lineitemText returns n bytes of rows like TPC-H dbgen's lineitem.tbl
// (pipe-separated, about 100 bytes a row: keys, quantities, prices, flags,
// three dates, ship instructions and mode, a comment), from seed.
func lineitemText(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 9))
	instr := []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	modes := []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	var out []byte
	for order := 1 + r.IntN(1<<20); len(out) < n; order += 1 + r.IntN(8) {
		for line := 1; line <= 1+r.IntN(7); line++ {
			y, m, d := 1992+r.IntN(7), 1+r.IntN(12), 1+r.IntN(28)
			out = fmt.Appendf(out, "%d|%d|%d|%d|%d|%d.%02d|0.%02d|0.%02d|%c|%c|%04d-%02d-%02d|%04d-%02d-%02d|%04d-%02d-%02d|%s|%s|",
				order, 1+r.IntN(200000), 1+r.IntN(10000), line, 1+r.IntN(50), 900+r.IntN(100000), r.IntN(100),
				r.IntN(11), r.IntN(9), "RAN"[r.IntN(3)], "OF"[r.IntN(2)],
				y, m, d, y, 1+(m+r.IntN(2))%12, d, y, 1+(m+1)%12, 1+r.IntN(28),
				instr[r.IntN(len(instr))], modes[r.IntN(len(modes))])
			for i, k := 0, 2+r.IntN(5); i < k; i++ {
				if i > 0 {
					out = append(out, ' ')
				}
				out = append(out, tpchWords[r.IntN(len(tpchWords))]...)
			}
			out = append(out, "|\n"...)
		}
	}
	return out[:n]
}

// lineitemValues returns n bytes of lineitem-like values end to end, as a
// kv store's Columnar value area holds them (kv's lineitem benchmark rows):
// partkey, suppkey, quantity, price, discount, tax, two flags, three day
// numbers and a comment of 10..43 bytes of TPC-H-like words, pipe-separated,
// about 80 bytes a value, from seed.
func lineitemValues(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	var out []byte
	for len(out) < n {
		order := 1 + r.IntN(2400)
		for lines := 1 + r.IntN(7); lines > 0; lines-- {
			price := 90000 + r.IntN(10000000)
			ship := order + 1 + r.IntN(121)
			out = fmt.Appendf(out, "%d|%d|%d|%d.%02d|0.%02d|0.%02d|%c|%c|%d|%d|%d|",
				1+r.IntN(200000), 1+r.IntN(10000), 1+r.IntN(50), price/100, price%100,
				r.IntN(11), r.IntN(9), "RAN"[r.IntN(3)], "OF"[r.IntN(2)],
				ship, order+30+r.IntN(61), ship+1+r.IntN(30))
			c, k := len(out), 10+r.IntN(34)
			for len(out)-c < k {
				out = append(out, tpchWords[r.IntN(len(tpchWords))]...)
				out = append(out, ' ')
			}
			out = out[:c+k]
		}
	}
	return out[:n]
}
