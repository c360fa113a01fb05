# Page-fault-heavy real workload: a Python script hashing 300k strings into a JSON file
# (the dict, the strings and the JSON text grow the heap page by page).
#   python3 hashjson.py OUT
import hashlib
import json
import sys

d = {}
for i in range(300000):
    s = "string-%d" % i
    d[s] = hashlib.sha256(s.encode()).hexdigest()
with open(sys.argv[1], "w") as f:
    f.write(json.dumps(d))
