// Package chart draws the pictures fitbot shares: an answer's memory
// breakdown and a GPU's price history, as PNGs made to be read on a phone
// (large type, few colours, the verdict in the title).
//
// Each picture is built in two steps: a plain data value (MemoryData,
// PriceData) that says everything the picture shows, and the drawing of
// that value with gonum.org/v1/plot. Tests pin the data; the drawing is
// pure Go, so the binary stays static. chart imports sizing and pricing
// and does no I/O beyond the writer it is given.
package chart
