import numpy as np


def soft_max(z):
    # 按行做 softmax（这里没有先减最大值）
    t = np.exp(z)
    a = np.exp(z) / np.expand_dims(np.sum(t, axis=1), 1)
    return a


# 三个 token，每个 3 维
Query = np.array([
    [1, 0, 2],
    [2, 2, 2],
    [2, 1, 3]
])

Key = np.array([
    [0, 1, 1],
    [4, 4, 0],
    [2, 3, 1]
])

Value = np.array([
    [1, 2, 3],
    [2, 8, 0],
    [2, 6, 3]
])

# 注意力分数：Q 乘 K 的转置
scores = Query @ Key.T
print(scores)
# 归一化成权重
scores = soft_max(scores)
print(scores)
# 用权重对 Value 加权求和
out = scores @ Value
print(out)
