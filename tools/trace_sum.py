import re, sys, statistics
w=[];g=[];n=[]
for line in open(sys.argv[1]):
    m=re.search(r"host time: walk and plan ([\d.]+) us, groups ([\d.]+) us", line)
    if m: w.append(float(m[1])); g.append(float(m[2]))
    m=re.search(r"eval \(.*\): (\d+) nodes in (\d+) groups", line)
    if m: n.append((int(m[1]), int(m[2])))
big=[i for i,(a,b) in enumerate(n) if a>=200]
print("evals", len(n), "with >=200 nodes:", len(big), "median walk+plan", statistics.median([w[i] for i in big]), "median groups", statistics.median([g[i] for i in big]), "groups/eval", n[big[-1]])
