mod offload;
