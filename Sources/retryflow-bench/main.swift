// The benchmarks arrive with issue 6; this placeholder measures nothing and says so.
print("retryflow-bench: no benchmarks yet")
