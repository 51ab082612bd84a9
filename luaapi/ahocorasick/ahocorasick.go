// Package ahocorasick finds every occurrence of a set of keywords in a text
// in one pass, whatever the number of keywords: an Aho-Corasick automaton
// compiled to a table-driven DFA over byte classes (each byte that occurs
// in a keyword is a class of its own, every other byte one class), so
// that a text costs one table lookup per byte. It is what luaapi's scan
// module runs (the keyword prefilters of the stdlib's guards and the
// candidate search of its redaction rules). It imports nothing of ours.
//
// A Matcher is immutable once built and safe for concurrent use.
package ahocorasick

import (
	"errors"
	"fmt"
	"slices"
)

// MaxTable bounds the size of a Matcher's transition table (states times
// byte classes); New refuses keyword sets that need more. A set of a few
// hundred keywords needs a few hundred thousand entries.
const MaxTable = 1 << 22

// ErrEmptyKeyword is returned by New for an empty keyword (it would occur
// at every position).
var ErrEmptyKeyword = errors.New("ahocorasick: empty keyword")

// A Matcher finds the occurrences of its keywords.
type Matcher struct {
	class  [256]uint8
	nclass int
	// delta[state*nclass+class]: the next state, premultiplied by nclass
	// (the index of its row), negated when keywords end there (the
	// inner loop of Scan then costs two loads a byte; BenchmarkRedactSecrets).
	delta []int32
	// out[state] is the range of outs holding the keywords that end at
	// state (own and through suffix links), longest first; empty when
	// outLo == outHi.
	outLo, outHi []int32
	outs         []int32
	lens         []int     // keyword lengths
	stay         [256]bool // at the root, the byte leads back to the root
}

// New builds the matcher of keywords (the same keyword twice is found
// twice). It fails for an empty keyword and for a set whose table would
// exceed MaxTable.
func New(keywords []string) (*Matcher, error) {
	return build(keywords, false)
}

// NewFolded builds the matcher of keywords that ignores ASCII case: an
// occurrence is where the text, its ASCII letters lowercased, holds the
// keyword, its ASCII letters lowercased (other bytes compare as they
// are). Scanning a text with it finds what New's matcher of the
// lowercased keywords finds in the text ASCII-lowercased, without
// building that copy. It fails as New does.
func NewFolded(keywords []string) (*Matcher, error) {
	return build(keywords, true)
}

// lowerASCII returns b with an ASCII capital lowercased.
func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// Check reports the error New would return for keywords, in a pass over
// their bytes and without building anything: a caller may build the
// Matcher later, when it is first needed, knowing that New succeeds.
func Check(keywords []string) error {
	var used [256]bool
	total, nclass := 0, 1
	for _, k := range keywords {
		if k == "" {
			return ErrEmptyKeyword
		}
		total += len(k)
		for j := 0; j < len(k); j++ {
			if !used[k[j]] {
				used[k[j]] = true
				nclass++
			}
		}
	}
	return checkTable(len(keywords), total, min(nclass, 256))
}

// checkTable is the bound on the transition table of New.
func checkTable(keywords, total, nclass int) error {
	if (total+1)*nclass > MaxTable {
		return fmt.Errorf("ahocorasick: %d keywords of %d bytes need a table of more than %d entries", keywords, total, MaxTable)
	}
	return nil
}

func build(keywords []string, fold bool) (*Matcher, error) {
	if fold {
		low := make([]string, len(keywords))
		for i, k := range keywords {
			b := []byte(k)
			for j := range b {
				b[j] = lowerASCII(b[j])
			}
			low[i] = string(b)
		}
		keywords = low
	}
	m := &Matcher{lens: make([]int, len(keywords))}
	var used [256]bool
	total := 0
	for i, k := range keywords {
		if k == "" {
			return nil, ErrEmptyKeyword
		}
		m.lens[i] = len(k)
		total += len(k)
		for j := 0; j < len(k); j++ {
			used[k[j]] = true
		}
	}
	m.nclass = 1
	for b := range 256 {
		if used[b] {
			m.class[b] = uint8(m.nclass)
			m.nclass++
		}
	}
	if m.nclass > 256 { // every byte is used: class 0 is then a byte too
		m.nclass = 256
		for b := range 256 {
			m.class[b] = uint8(b)
		}
	}
	if fold {
		for b := 'A'; b <= 'Z'; b++ {
			m.class[b] = m.class[b+'a'-'A']
		}
	}
	if err := checkTable(len(keywords), total, m.nclass); err != nil {
		return nil, err
	}
	// The trie: goto edges in delta (-1: none), own outputs per state.
	// Its states are the distinct prefixes of the keywords, counted first
	// so that delta is allocated once: growing it was half of the work of
	// New, which the default stdlib set runs for its prefilters at every
	// start of monad-hooks run (BenchmarkCLIRun).
	nc := m.nclass
	states := distinctPrefixes(keywords)
	m.delta = make([]int32, states*nc)
	for i := range m.delta {
		m.delta[i] = -1
	}
	nstates := 1
	own := make([][]int32, states)
	for i, k := range keywords {
		s := int32(0)
		for j := 0; j < len(k); j++ {
			c := int(m.class[k[j]])
			next := m.delta[int(s)*nc+c]
			if next < 0 {
				next = int32(nstates)
				nstates++
				m.delta[int(s)*nc+c] = next
			}
			s = next
		}
		own[s] = append(own[s], int32(i))
	}
	// Breadth first: suffix links, complete transitions and outputs.
	n := len(own)
	fail := make([]int32, n)
	outs := make([][]int32, n)
	queue := make([]int32, 0, n)
	for c := 0; c < nc; c++ {
		if t := m.delta[c]; t < 0 {
			m.delta[c] = 0
		} else {
			fail[t] = 0
			queue = append(queue, t)
		}
	}
	outs[0] = own[0]
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if len(outs[fail[s]]) == 0 {
			outs[s] = own[s] // own[s] is this state's alone
		} else {
			outs[s] = append(slices.Clone(own[s]), outs[fail[s]]...)
		}
		for c := 0; c < nc; c++ {
			t := m.delta[int(s)*nc+c]
			if t < 0 {
				m.delta[int(s)*nc+c] = m.delta[int(fail[s])*nc+c]
				continue
			}
			fail[t] = m.delta[int(fail[s])*nc+c]
			queue = append(queue, t)
		}
	}
	m.outLo = make([]int32, n)
	m.outHi = make([]int32, n)
	for s, o := range outs {
		if len(o) > 1 {
			slices.SortStableFunc(o, func(a, b int32) int { return m.lens[b] - m.lens[a] })
		}
		m.outLo[s] = int32(len(m.outs))
		m.outs = append(m.outs, o...)
		m.outHi[s] = int32(len(m.outs))
	}
	for b := range 256 {
		m.stay[b] = m.delta[int(m.class[b])] == 0
	}
	for i, t := range m.delta {
		m.delta[i] = t * int32(nc)
		if m.outLo[t] < m.outHi[t] {
			m.delta[i] = -m.delta[i]
		}
	}
	return m, nil
}

// Len returns the length of keyword k.
func (m *Matcher) Len(k int) int { return m.lens[k] }

// Scan reports the keywords that end in text[lo:hi], scanning from state
// (0 at the start of a text, else the state an earlier Scan returned for
// the bytes before lo): emit gets each occurrence's start (an index into
// the text, which may be before lo) and keyword index, in the order of
// their ends, the longest first among those that end at the same byte.
// Scan stops early when emit returns false. It returns the state after
// the last byte scanned, and whether it scanned up to hi.
func (m *Matcher) Scan(text string, lo, hi int, state int32, emit func(start, k int) bool) (int32, bool) {
	nc := int32(m.nclass)
	delta, class := m.delta, &m.class
	for i := lo; i < hi; i++ {
		if state == 0 {
			for i < hi && m.stay[text[i]] {
				i++
			}
			if i == hi {
				break
			}
		}
		state = delta[state+int32(class[text[i]])]
		if state < 0 {
			state = -state
			s := state / nc
			for _, k := range m.outs[m.outLo[s]:m.outHi[s]] {
				if !emit(i+1-m.lens[k], int(k)) {
					return state, false
				}
			}
		}
	}
	return state, true
}

// distinctPrefixes returns the number of distinct prefixes of keywords,
// the empty one included: the states of their trie.
func distinctPrefixes(keywords []string) int {
	sorted := slices.Clone(keywords)
	slices.Sort(sorted)
	n := 1
	prev := ""
	for _, k := range sorted {
		common := 0
		for common < len(k) && common < len(prev) && k[common] == prev[common] {
			common++
		}
		n += len(k) - common
		prev = k
	}
	return n
}
