#!/usr/bin/env python3
# Peak resident memory of `ocmem serve` for N concurrent 4 MB CJK messages.
# Usage: scripts/peak-message.py PATH-TO-OCMEM N   (Linux: reads VmHWM)
import json, os, random, shutil, subprocess, sys, tempfile, time

bin, n = sys.argv[1], int(sys.argv[2])
d = tempfile.mkdtemp(prefix="ocmem-peak-"); os.makedirs(d+"/g", exist_ok=True); os.makedirs(d+"/p", exist_ok=True)
env = dict(os.environ, OCMEM_GLOBAL=d+"/g", OCMEM_PROJECT=d+"/p", OCMEM_CACHE_DIR=d+"/cache", OCMEM_LOG=d+"/log")
# a few memories, so ranking has work
for i in range(20):
    subprocess.run([bin,"remember","--category","facts","--kind","fact","--summary",f"部署 服务 {i} 需要 检查 配置 kafka{i}"],env=env,capture_output=True)
random.seed(1)
cjk = "".join(chr(random.randint(0x4e00, 0x9fff)) for _ in range(4*1024*1024//3 - 200))
p = subprocess.Popen([bin,"serve"],stdin=subprocess.PIPE,stdout=subprocess.PIPE,env=env)
lines = []
for i in range(n):
    lines.append(json.dumps({"jsonrpc":"2.0","id":i+1,"method":"message","params":{"sessionID":f"ses_{i}","text":"如何部署服务？\n"+cjk}}, ensure_ascii=False).encode()+b"\n")
t0=time.time()
for l in lines: p.stdin.write(l)
p.stdin.flush()
got=0
while got<n:
    r=p.stdout.readline()
    if not r: break
    got+=1
hwm=[l for l in open(f"/proc/{p.pid}/status") if l.startswith("VmHWM")][0].strip()
print(f"n={n} msg_bytes={len(lines[0])} replies={got} secs={time.time()-t0:.1f} {hwm}")
p.stdin.close(); p.wait()
shutil.rmtree(d)
