# gnnrepl in Jupyter: builds gnnrepl, installs Jupyter Notebook from Debian
# packages and the gnnrepl kernelspec, and serves the tutorial notebooks.
#
#   docker build -t gnnrepl .
#   docker run --rm -p 8888:8888 -v gnnrepl-data:/data gnnrepl
#
# then open the http://127.0.0.1:8888/?token=... address the container
# prints. Datasets are read from (and downloaded into) /data; mount a copy of
# the data directory there to work offline.
#
# No Docker engine runs in CI, so every step here is one CI already runs
# (.ci/run and scripts/notebooks.sh): the same `go build` with
# CGO_ENABLED=0, Debian bookworm's jupyter packages and libopenblas0-pthread,
# and `gnnrepl kernel install`.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# CGO_ENABLED=0: OpenBLAS and CUDA are opened at run time with purego, so the
# binary needs only the C library's dynamic loader.
RUN CGO_ENABLED=0 go build -trimpath -o /out/gnnrepl ./cmd/gnnrepl

FROM debian:bookworm-slim
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      jupyter-notebook jupyter-client jupyter-nbconvert python3-nbclient \
      libopenblas0-pthread ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/gnnrepl /usr/local/bin/gnnrepl
# The system-wide kernelspec, /usr/local/share/jupyter/kernels/gnnrepl.
RUN gnnrepl kernel install --executable /usr/local/bin/gnnrepl \
 && jupyter kernelspec list

RUN useradd --create-home --uid 1000 gnn \
 && mkdir -p /data && chown gnn:gnn /data
COPY --chown=gnn:gnn notebooks/ /home/gnn/notebooks/
USER gnn
WORKDIR /home/gnn/notebooks
ENV GNNREPL_DATA=/data
VOLUME /data
EXPOSE 8888
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["jupyter", "notebook", "--ip=0.0.0.0", "--port=8888", "--no-browser", "--notebook-dir=/home/gnn/notebooks"]
