package bot

import (
	"errors"
	"time"

	"github.com/fitbot/fitbot/sizing"
)

// Parsed stands in for sizing.Parsed until it lands.
type Parsed struct {
	Query   sizing.Query
	Notes   []string
	Ignored []string
}

// Plan stands in for store.Plan until it lands.
type Plan struct {
	ID                                               int64
	CreatedAt                                        time.Time
	Source, Team, Channel, User, Question, Canonical string
	Request                                          sizing.Request
	ModelKey                                         string
	Fits                                             bool
	Headroom                                         string
	GPU                                              string
	GPUs                                             int
	PerGPUBytes                                      int64
	USDPerHour                                       *float64
	PriceProvider                                    string
	PriceAsOf                                        *time.Time
}

// formatQuery stands in for sizing.Format until it lands.
var formatQuery = func(q sizing.Query) string { return "" }

// gpuEntries and modelEntries stand in for the catalog until it lands.
var (
	gpuEntries   = func() []catalogEntry { return nil }
	modelEntries = func() []catalogEntry { return nil }
	lookupGPU    = func(name string) (string, error) { return name, nil }
)

var errNotFound = errors.New("not found")
