"""1.2 Self-attention from first principles on a tiny example (NumPy only).
玩具规模：T=3 个 token，d_model=4，单头，d_k=d_v=4。
脚本会把每一步的中间张量都打印出来，方便对照公式手算。

形状一览 (单头)
--------------------------------
X:          (B=1, T=3, d_model=4)  - 输入
Wq/Wk/Wv:   (d_model=4, d_k=4)     - 三个投影矩阵
Q,K,V:      (1, 3, 4)              - 投影结果
Scores:     (1, 3, 3)              - Q @ K^T，再乘缩放因子
Weights:    (1, 3, 3)              - 按最后一维做 softmax
Output:     (1, 3, 4)              - Weights @ V
"""
import numpy as np

# 打印时保留 4 位小数，关掉科学计数法
np.set_printoptions(precision=4, suppress=True)

# ---------- 1. 输入 ----------
# batch=1, seq_len=3, d_model=4：三个 token 的嵌入
X = np.array([[[0.1, 0.2, 0.3, 0.4],  # 第 1 个 token
               [0.5, 0.4, 0.3, 0.2],  # 第 2 个 token
               [0.0, 0.1, 0.0, 0.1]]], dtype=np.float32)  # 第 3 个 token

print("=" * 50)
print("第 0 步：输入")
print("=" * 50)
print("X shape:", X.shape, "\nX=\n", X[0])

# ---------- 2. 投影矩阵 ----------
# 真实模型里这些是训练出来的；这里写死，保证每次结果一样。
# 单头，d_model=4 -> d_k=d_v=4，投影前后维度不变

# Query 投影 (4, 4)
Wq = np.array([[ 0.2, -0.1,  0.05,  0.0 ],
               [ 0.0,  0.1, -0.05,  0.1 ],
               [ 0.1,  0.2,  0.0,  -0.1 ],
               [-0.1,  0.0,  0.15,  0.05]], dtype=np.float32)

# Key 投影 (4, 4)
Wk = np.array([[ 0.1,  0.1,  0.0,   0.05],
               [ 0.0, -0.1,  0.1,   0.0 ],
               [ 0.2,  0.0, -0.05,  0.1 ],
               [ 0.0,  0.2,  0.05, -0.1]], dtype=np.float32)

# Value 投影 (4, 4)
Wv = np.array([[ 0.1,  0.0,  0.05, -0.05],
               [-0.1,  0.1,  0.0,   0.1 ],
               [ 0.2, -0.1,  0.1,   0.0 ],
               [ 0.0,  0.2, -0.1,   0.15]], dtype=np.float32)

# ---------- 3. 得到 Q, K, V ----------
Q = X @ Wq  # (1, 3, 4)
K = X @ Wk  # (1, 3, 4)
V = X @ Wv  # (1, 3, 4)  (3,4) x (4,4) -> (3,4)

print("=" * 50)
print("第 1 步：投影成 Query / Key / Value")
print("=" * 50)
print("Q shape:", Q.shape, "\nQ=\n", Q[0])
print("\nK shape:", K.shape, "\nK=\n", K[0])
print("\nV shape:", V.shape, "\nV=\n", V[0])

# ---------- 4. 打分 ----------
# softmax(QK^T / sqrt(d_k)) V，先算括号里的部分
scale = 1.0 / np.sqrt(Q.shape[-1])  # 1/sqrt(d_k)，防止点积太大把 softmax 压扁
attn_scores = (Q @ K.transpose(0, 2, 1)) * scale  # (1, 3, 3)

print("\n" + "=" * 50)
print("第 2 步：缩放点积打分")
print("=" * 50)
print(f"缩放因子: {scale:.4f}")
print("缩放后的分数 (QK^T / sqrt(d_k)):\n", attn_scores[0])
print("attention shape: ", attn_scores.shape)
print("matrix attention score: ", attn_scores)

# ---------- 5. 因果掩码 ----------
# 对角线以上 (未来位置) 填一个很大的负数，softmax 之后就是 0，
# 这样每个 token 只能看见自己和前面的 token
mask = np.triu(np.ones((1, 3, 3), dtype=bool), k=1)  # k=1：严格上三角
attn_scores = np.where(mask, -1e9, attn_scores)

print("\n加上因果掩码之后的分数:")
print(attn_scores[0])
print("attenshion shape: ", attn_scores.shape)
print("attention matrix: ", attn_scores)

# ---------- 6. softmax ----------
weights = np.exp(attn_scores - attn_scores.max(axis=-1, keepdims=True))  # 先减最大值，数值更稳
weights = weights / weights.sum(axis=-1, keepdims=True)

print("\n" + "=" * 50)
print("第 3 步：softmax 得到注意力权重")
print("=" * 50)
print("Weights shape:", weights.shape, "\nAttention Weights (causal)=\n", weights[0])
print("\n检查：每一行加起来是 1，上三角全是 0")
print("weights shape: ", weights.shape)
print("weights matrix: ", weights)

# ---------- 7. 加权求和 ----------
out = weights @ V  # (1, 3, 4)

print("\n" + "=" * 50)
print("第 4 步：对 V 加权求和")
print("=" * 50)
print("Output shape:", out.shape, "\nOutput=\n", out[0])
print("\n每个位置的输出 = 它能看见的那些 V 的加权平均")
print("比如：token 0 只能看见它自己")
print("      token 1 能看见 token 0、1")
print("      token 2 三个都能看见")


# ---------- 8. 输出投影 ----------
# 完整的 Transformer 里还有一个 W_o，把各通道再混合一次；
# 单头、d_v = d_model = 4 时它不改变形状
print("\n" + "=" * 50)
print("第 5 步：输出投影")
print("=" * 50)

# 输出投影 (d_v=4, d_model=4)
W_o = np.array([[ 0.3,  0.1, -0.2,  0.4],
                [-0.1,  0.2,  0.3, -0.1],
                [ 0.2, -0.1,  0.1,  0.2],
                [ 0.0,  0.15, -0.05, 0.3]], dtype=np.float32)

print(f"W_o 形状: {W_o.shape} - (d_v=4, d_model=4)")

final_out = out @ W_o  # (1, 3, 4) @ (4, 4) -> (1, 3, 4)

print(f"\n最终输出形状: {final_out.shape}，和 X 一样")
print("Final Output=\n", final_out[0])
print("\n形状一致，所以可以直接做残差：")
print("   residual_out = X + final_out  # 都是 (1,3,4)")
