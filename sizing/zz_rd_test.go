package sizing
import ("testing";"os";"strings")
func TestZZReading(t *testing.T){ for _,q:=range strings.Split(os.Getenv("QS"),"|"){ t.Logf("%s => %s", q, reading(q)) } }
