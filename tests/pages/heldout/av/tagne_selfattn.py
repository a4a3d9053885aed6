# Held-out page: written up from a published worked example (a small repository's PyTorch script with
# German comments, single-head then two-head self-attention on fixed inputs, no output pasted);
# the numbers and the order of the code are as published, the comments and print labels reworded.
import torch
import torch.nn.functional as F

# Beispiel: 3 Tokens, jedes ein 4-dimensionaler Vektor
tokens = torch.tensor([
    [1.0, 0.0, 1.0, 0.0],
    [0.0, 2.0, 0.0, 2.0],
    [1.0, 1.0, 1.0, 1.0]
]).unsqueeze(0)  # Form: (1, 3, 4)

# Projektionsmatrizen für Q, K, V
W_q = torch.tensor([[0.5, 0.0, 0.5, 0.0],
                    [0.0, 0.5, 0.0, 0.5],
                    [0.5, 0.0, 0.5, 0.0],
                    [0.0, 0.5, 0.0, 0.5]])
W_k = W_q.clone()
W_v = torch.eye(4)

# Q, K und V bilden
Q = tokens @ W_q
K = tokens @ W_k
V = tokens @ W_v

# Scores, Gewichte und Ausgabe eines einzelnen Kopfes
d_k = Q.size(-1)
scores = torch.matmul(Q, K.transpose(-2, -1)) / d_k**0.5
weights = F.softmax(scores, dim=-1)
self_attn_output = torch.matmul(weights, V)

print("Scores (ein Kopf):\n", scores.squeeze())
print("\nGewichte nach Softmax:\n", weights.squeeze())
print("\nAusgabe (ein Kopf):\n", self_attn_output.squeeze())

# Zwei Köpfe mit je 2 Dimensionen
def split_heads(x, num_heads):
    B, T, D = x.shape
    head_dim = D // num_heads
    return x.view(B, T, num_heads, head_dim).transpose(1, 2)

Q_multi = split_heads(Q, 2)
K_multi = split_heads(K, 2)
V_multi = split_heads(V, 2)

scores_multi = torch.matmul(Q_multi, K_multi.transpose(-2, -1)) / (Q_multi.size(-1) ** 0.5)
weights_multi = F.softmax(scores_multi, dim=-1)
output_multi = torch.matmul(weights_multi, V_multi)

# Köpfe wieder zusammensetzen
multihead_output = output_multi.transpose(1, 2).reshape(1, 3, 4)

print("\nAusgabe (zwei Köpfe):\n", multihead_output.squeeze())
