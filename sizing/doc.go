// Package sizing is fitbot's pure estimator: the embedded GPU and model
// catalogs, the request types, the memory model, the verdict, the
// alternatives search, the throughput, time and cost arithmetic, and the
// deterministic question parser.
//
// It imports nothing of fitbot's and does no I/O, so that every answer can
// be tested exhaustively and computed in microseconds. Prices reach it
// through the PriceSource interface it declares.
package sizing
