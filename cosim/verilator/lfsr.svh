// The stimulus generator shared by the testbenches: rtl_models::Lfsr32 (Galois,
// x^32 + x^22 + x^2 + x + 1, toggle mask 0x80200003), one draw = 32 register clocks.
function automatic bit [31:0] lfsr32_draw(input bit [31:0] s);
  bit [31:0] r = s;
  for (int i = 0; i < 32; i++) begin
    if (r[0]) r = (r >> 1) ^ 32'h8020_0003;
    else      r = r >> 1;
  end
  return r;
endfunction
