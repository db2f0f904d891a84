package runner

import (
	"context"
	"runtime"
	"sync"
)

// Each calls fn(i) for i = 0 … n−1 on a pool of workers goroutines (0 =
// GOMAXPROCS), handing out indices in order; it is the one worker pool of
// 'arena simulate' (one index per policy) and 'arena sweep' (one per
// run). Once ctx is cancelled no further index is handed out; Each
// returns when every call started has returned.
func Each(ctx context.Context, workers, n int, fn func(i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(1, n))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
}
