package stdlib

import (
	"hash/crc32"
	"sync/atomic"
)

//go:generate go test -run ^TestCatalogUpToDate$ -update-catalog .

// A generatedPack is one pack's header as parsePack read it at go generate
// time (catalog_gen.go), with the length and CRC-32 of the header part
// (headerPart) it was read from.
type generatedPack struct {
	headerLen int
	headerSum uint32
	info      PackInfo
}

// headerParses counts the headers parsed at run time (a test reads it):
// the generated catalog serves every embedded pack whose header is the one
// it was generated from.
var headerParses atomic.Int64

// packInfo returns the pack described by header, the header part of the
// embedded file name+".lua": its generated entry when that was read from
// this very header (length and CRC-32), else parsed. Parsing the headers of
// the default set was a twentieth of the start of monad-hooks run
// (BenchmarkCLIRun); after a header changes and before the catalog is
// generated again, the header is parsed as before, and
// TestCatalogUpToDate fails.
func packInfo(name, header string) (PackInfo, error) {
	for i := range generatedCatalog {
		g := &generatedCatalog[i]
		if g.info.Name == name && g.headerLen == len(header) && g.headerSum == crc32.ChecksumIEEE([]byte(header)) {
			return g.info, nil
		}
	}
	headerParses.Add(1)
	return parsePack(name+".lua", header)
}
