package pricing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The AWS price hosts: the pricing calculator's on-demand files and the
// spot feed behind aws.amazon.com/ec2/spot/pricing. Neither needs a key.
// FITBOT_AWS_URL replaces both with one host serving both paths.
const (
	DefaultAWSOnDemandURL = "https://b0.p.awsstatic.com"
	DefaultAWSSpotURL     = "https://website.spot.ec2.aws.a2z.com"
)

// awsOnDemandPath is the meteredUnitMaps file of Linux on-demand prices for
// one location; %s is the location's display name, path-escaped.
const awsOnDemandPath = "/pricing/2.0/meteredUnitMaps/ec2/USD/current/ec2-ondemand-without-sec-sel/%s/Linux/index.json"

// awsSpotPath is the spot price feed (all regions, one file).
const awsSpotPath = "/spot.json"

// awsLocations maps the region codes fitbot prices to the display names
// the meteredUnitMaps files are keyed by (the calculator uses names, not
// codes).
var awsLocations = map[string]string{
	"us-east-1":      "US East (N. Virginia)",
	"us-east-2":      "US East (Ohio)",
	"us-west-2":      "US West (Oregon)",
	"eu-west-1":      "EU (Ireland)",
	"eu-central-1":   "EU (Frankfurt)",
	"ap-northeast-1": "Asia Pacific (Tokyo)",
}

// AWSRegions lists the region codes an AWS fetcher can price.
func AWSRegions() []string { return slices.Sorted(maps.Keys(awsLocations)) }

// DefaultAWSRegions are the regions an AWS refresh reads: where the GPU
// instances are most often available.
var DefaultAWSRegions = []string{"us-east-1", "us-east-2", "us-west-2", "eu-west-1", "eu-central-1", "ap-northeast-1"}

// AWS reads EC2 GPU instance prices: on-demand Linux prices per region from
// the pricing calculator's meteredUnitMaps files and spot prices from the
// spot feed (spot.json), with an explicit instance-type table (awsInstances)
// for the GPUs. Prices are per instance-hour; offers carry both the
// instance and the per-GPU price. Spot prices of "N/A" or 0 (newer types
// the feed does not price yet) are skipped.
type AWS struct {
	// Regions are the region codes priced; NewAWS sets
	// DefaultAWSRegions. Each must be one awsLocations knows.
	Regions []string

	onDemandURL string
	spotURL     string
	hc          *http.Client
	logger      *slog.Logger
	now         func() time.Time
}

// NewAWS returns an AWS fetcher for DefaultAWSRegions. An empty baseURL
// reads the real hosts; otherwise both files are read from baseURL (a
// mirror or a test server). A nil logger discards.
func NewAWS(baseURL string, hc *http.Client, logger *slog.Logger) *AWS {
	a := &AWS{
		onDemandURL: DefaultAWSOnDemandURL, spotURL: DefaultAWSSpotURL,
		Regions: DefaultAWSRegions, hc: orDefaultClient(hc), logger: orDiscard(logger), now: time.Now,
	}
	if baseURL != "" {
		a.onDemandURL, a.spotURL = baseURL, baseURL
	}
	return a
}

// Name returns "aws".
func (a *AWS) Name() string { return "aws" }

// Fetch reads the on-demand file of every region, then the spot feed. Any
// failure fails the whole fetch: a half-read price list would look like
// withdrawn offers.
func (a *AWS) Fetch(ctx context.Context) (FetchResult, error) {
	at := a.now().UTC()
	res := FetchResult{Unknown: map[string]int{}}
	for _, region := range a.Regions {
		loc, ok := awsLocations[region]
		if !ok {
			return FetchResult{}, fmt.Errorf("aws: region %q has no known location name", region)
		}
		path := fmt.Sprintf(awsOnDemandPath, url.PathEscape(loc))
		raw, err := providerCall(ctx, a.hc, providerRequest{
			provider: "aws", method: http.MethodGet, url: strings.TrimSuffix(a.onDemandURL, "/") + path,
		})
		if err != nil {
			return FetchResult{}, fmt.Errorf("%w (on-demand prices, %s)", err, region)
		}
		offers, err := decodeAWSOnDemand(raw, region, loc, at, "b0.p.awsstatic.com"+path, res.Unknown)
		if err != nil {
			return FetchResult{}, fmt.Errorf("aws: on-demand prices, %s: %w", region, err)
		}
		res.Offers = append(res.Offers, offers...)
	}
	var spotPublished time.Time
	raw, err := providerCall(ctx, a.hc, providerRequest{
		provider: "aws", method: http.MethodGet, url: strings.TrimSuffix(a.spotURL, "/") + awsSpotPath,
		lastModified: &spotPublished,
	})
	if err != nil {
		return FetchResult{}, fmt.Errorf("%w (spot prices)", err)
	}
	spot, err := decodeAWSSpot(raw, a.Regions, at, "website.spot.ec2.aws.a2z.com"+awsSpotPath, res.Unknown)
	if err != nil {
		return FetchResult{}, fmt.Errorf("aws: spot prices: %w", err)
	}
	for i := range spot {
		spot[i].PublishedAt = spotPublished
	}
	res.Offers = append(res.Offers, spot...)
	logUnknown(a.logger, "aws", res.Unknown)
	return res, nil
}

// awsOnDemandFile is the meteredUnitMaps shape. Its product maps are keyed
// by compound strings ("p5 48xlarge US East N. Virginia Linux"); the
// instance type is an attribute of each.
type awsOnDemandFile struct {
	Manifest struct {
		CurrencyCode string `json:"currencyCode"`
		// HawkFilePublicationDate is when AWS generated the file
		// (RFC 3339); a date that stops moving is a frozen feed.
		HawkFilePublicationDate string `json:"hawkFilePublicationDate"`
	} `json:"manifest"`
	Regions map[string]map[string]awsProduct `json:"regions"`
}

type awsProduct struct {
	Price        string `json:"price"`
	InstanceType string `json:"Instance Type"`
	Location     string `json:"Location"`
}

// decodeAWSOnDemand turns one location's meteredUnitMaps file into offers.
// GPU-family instance types missing from awsInstances are counted in
// unknown; other families (CPU instances) are not GPU offers at all.
func decodeAWSOnDemand(raw []byte, region, location string, at time.Time, source string, unknown map[string]int) ([]Offer, error) {
	var f awsOnDemandFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("decode meteredUnitMaps: %w", err)
	}
	if f.Manifest.CurrencyCode != "USD" {
		return nil, fmt.Errorf("currency %q, want USD", f.Manifest.CurrencyCode)
	}
	var published time.Time
	if d := f.Manifest.HawkFilePublicationDate; d != "" {
		t, err := time.Parse(time.RFC3339, d)
		if err != nil {
			return nil, fmt.Errorf("manifest.hawkFilePublicationDate %q is not an RFC 3339 time", truncate(d, 40))
		}
		published = t.UTC()
	}
	products, ok := f.Regions[location]
	if !ok {
		return nil, fmt.Errorf("the file has no prices for %q", location)
	}
	// Map order is random; sort the keys so that offers come out in one
	// order run after run.
	keys := make([]string, 0, len(products))
	for k := range products {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var offers []Offer
	for _, k := range keys {
		p := products[k]
		spec, ok := awsInstances[p.InstanceType]
		if !ok {
			if awsGPUFamily(p.InstanceType) {
				unknown[p.InstanceType]++
			}
			continue
		}
		price, err := strconv.ParseFloat(strings.TrimSpace(p.Price), 64)
		if err != nil {
			return nil, fmt.Errorf("%s: price %q is not a number", p.InstanceType, p.Price)
		}
		if price <= 0 {
			continue
		}
		o := instanceOffer("aws", p.InstanceType, spec, MarketOnDemand, "", region, price, at, source)
		o.PublishedAt = published
		offers = append(offers, o)
	}
	return cheapestPerKey(offers), nil
}

// awsSpotFeed is the spot.json shape.
type awsSpotFeed struct {
	Config struct {
		Rate       string   `json:"rate"`
		Currencies []string `json:"currencies"`
		Regions    []struct {
			Region        string `json:"region"`
			InstanceTypes []struct {
				Sizes []struct {
					Size         string `json:"size"`
					ValueColumns []struct {
						Name   string            `json:"name"`
						Prices map[string]string `json:"prices"`
					} `json:"valueColumns"`
				} `json:"sizes"`
			} `json:"instanceTypes"`
		} `json:"regions"`
	} `json:"config"`
}

// decodeAWSSpot turns the spot feed into spot offers for the wanted
// regions. Values that are not prices ("N/A*") and zeros are skipped.
func decodeAWSSpot(raw []byte, regions []string, at time.Time, source string, unknown map[string]int) ([]Offer, error) {
	var f awsSpotFeed
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("decode spot.json: %w", err)
	}
	if f.Config.Rate != "perhr" {
		return nil, fmt.Errorf("rate %q, want perhr", f.Config.Rate)
	}
	if !slices.Contains(f.Config.Currencies, "USD") {
		return nil, fmt.Errorf("currencies %q, want USD", f.Config.Currencies)
	}
	if len(f.Config.Regions) == 0 {
		return nil, errors.New("the feed lists no regions")
	}
	var offers []Offer
	for _, r := range f.Config.Regions {
		if !slices.Contains(regions, r.Region) {
			continue
		}
		for _, it := range r.InstanceTypes {
			for _, s := range it.Sizes {
				spec, ok := awsInstances[s.Size]
				if !ok {
					if awsGPUFamily(s.Size) {
						unknown[s.Size]++
					}
					continue
				}
				for _, vc := range s.ValueColumns {
					if vc.Name != "linux" {
						continue
					}
					price, err := strconv.ParseFloat(strings.TrimSpace(vc.Prices["USD"]), 64)
					if err != nil || price <= 0 {
						continue // "N/A*", or 0 for a type the feed does not price yet
					}
					offers = append(offers, instanceOffer("aws", s.Size, spec, MarketSpot, "", r.Region, price, at, source))
				}
			}
		}
	}
	return cheapestPerKey(offers), nil
}

// instanceOffer is an offer priced per instance-hour.
func instanceOffer(provider, instance string, spec gpuSpec, m Market, tier, region string, usdPerHour float64, at time.Time, source string) Offer {
	return Offer{
		Provider:      provider,
		InstanceType:  instance,
		GPU:           spec.GPU,
		GPUCount:      spec.Count,
		Market:        m,
		Tier:          tier,
		Region:        region,
		USDPerHour:    usdPerHour,
		USDPerGPUHour: usdPerHour / spec.Count,
		Source:        source,
		ObservedAt:    at,
		Samples:       1,
	}
}
