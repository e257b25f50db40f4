package sizing

import (
	"math"
	"testing"
)

// TestOffloadSlowsTheStep: an offloaded optimizer step adds the host
// transfers not hidden under the backward pass and the CPU's Adam (gave a 70B full fine-tune on 2 A100s with ZeRO-3 and CPU offload
// the speed of the setup that does not fit, 967 tokens/s; the step adds
// about 20 s: 140 GB over PCIe per card and 70B parameters of CPU-Adam).
func TestOffloadSlowsTheStep(t *testing.T) {
	p, err := Parse("70b full on 2 a100s zero 3 offload cpu")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := resolve(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	off := trainingStep(&rs.req, &rs.shape, &rs.gpu, 0)
	on := rs.req
	on.Offload = OffloadNone
	plain := trainingStep(&on, &rs.shape, &rs.gpu, 0)
	trainable := float64(rs.shape.trainable(&rs.req))
	transfer := 4 * trainable / 2 / hostLinkBytesPerSec
	want := max(0, transfer-backwardShare*off.compute) + trainable/cpuAdamParamsPerSec
	if math.Abs(off.offload-want) > 1e-9*want || off.offload < 15 {
		t.Errorf("offload adds %.2f s a step, want %.2f s (transfers %.1f s, CPU-Adam %.1f s)", off.offload, want, transfer, trainable/cpuAdamParamsPerSec)
	}
	if plain.offload != 0 || off.tokensPerSec(&rs.req) >= plain.tokensPerSec(&on)/2 {
		t.Errorf("offload %.0f tokens/s against %.0f without: want well under half", off.tokensPerSec(&rs.req), plain.tokensPerSec(&on))
	}
}
