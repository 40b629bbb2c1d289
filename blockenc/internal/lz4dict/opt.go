package lz4dict

import "math"

// optMaxInput is the largest input the optimal parse takes (its nodes need
// 16 bytes per input byte, and positions and prices are int32); larger
// inputs are parsed as at LevelHC.
const optMaxInput = 16 << 20

// optNode is the cheapest known way to encode the input up to one position:
// its price in bytes, how many literals it ends with, and the last step (a
// literal when mlen is 0, else a match of mlen bytes at offset off).
type optNode struct {
	price, lit, mlen, off int32
}

// optMatch is one match of the chosen parse.
type optMatch struct {
	pos, mlen, off int32
}

// matchPrice is the cost in bytes of a sequence's match part of length l,
// counting its token: token, offset, and the length's continuation bytes.
func matchPrice(l int) int32 {
	if l-minMatch < 15 {
		return 3
	}
	return 4 + int32(l-minMatch-15)/255
}

// compressOpt is the optimal parse of c.buf[start:], matching back into
// c.buf[:start]: at every position the longest match is found (depth chain
// candidates), and a shortest-path pass over the positions prices each
// literal at 1 byte (plus its run's length bytes) and each match of every
// length from 4 to the longest at matchPrice. A match of nice bytes or more
// is taken at once, without searching the positions it covers. After 256
// searches in a row without a match, searches thin out as in compressHC.
func (c *Compressor) compressOpt(dst []byte, start, depth, nice int) []byte {
	buf := c.buf
	n := len(buf)
	if n-start < mfLimit {
		return appendSequence(dst, buf[start:], 0, 0)
	}
	if n-start > optMaxInput {
		return c.compressHC(dst, buf, start, hcDepth(LevelHC), nil, 0)
	}
	m := c.matcher(buf, depth, nil)
	size := n - start + 1
	if cap(c.opt) < size {
		c.opt = make([]optNode, size)
	}
	nodes := c.opt[:size]
	for k := range nodes {
		nodes[k] = optNode{price: math.MaxInt32}
	}
	nodes[0].price = 0

	last := n - mfLimit  // matches start at or before last
	misses, wait := 0, 0 // searches without a match in a row; positions left to skip
	for i := start; i < n; {
		k := i - start
		cur := nodes[k]
		lit := cur.lit + 1
		price := cur.price + 1
		if lit == 15 || lit > 15 && (lit-15)%255 == 0 {
			price++ // the run needs one more length byte
		}
		if price < nodes[k+1].price {
			nodes[k+1] = optNode{price: price, lit: lit}
		}
		if wait > 0 {
			wait--
		} else if i <= last {
			ml, cand := m.find(i, minMatch-1, true)
			if cand == noMatch {
				// Long misses skip searches (like compressHC's steps).
				misses++
				wait = misses >> hcSkipShift
			} else {
				misses = 0
				off := int32(i - cand)
				if ml >= nice {
					if p := cur.price + matchPrice(ml); p < nodes[k+ml].price {
						nodes[k+ml] = optNode{price: p, mlen: int32(ml), off: off}
					}
					i += ml
					continue
				}
				for l := minMatch; l <= ml; l++ {
					if p := cur.price + matchPrice(l); p < nodes[k+l].price {
						nodes[k+l] = optNode{price: p, mlen: int32(l), off: off}
					}
				}
			}
		}
		i++
	}

	// Walk the cheapest path back from the end, then emit it forwards.
	seqs := c.optSeqs[:0]
	for k := size - 1; k > 0; {
		nd := nodes[k]
		if nd.mlen == 0 {
			k--
			continue
		}
		k -= int(nd.mlen)
		seqs = append(seqs, optMatch{pos: int32(start + k), mlen: nd.mlen, off: nd.off})
	}
	c.optSeqs = seqs
	anchor := start
	for j := len(seqs) - 1; j >= 0; j-- {
		s := seqs[j]
		dst = appendSequence(dst, buf[anchor:s.pos], int(s.off), int(s.mlen))
		anchor = int(s.pos + s.mlen)
	}
	return appendSequence(dst, buf[anchor:], 0, 0)
}
