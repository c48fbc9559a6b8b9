"""Transport: the gRPC servicer, conversions and status mapping. The core never imports grpc."""
