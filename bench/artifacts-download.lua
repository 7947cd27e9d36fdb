-- wrk: GET every artifact path of ARTIFACT_PATHS in turn, with the API key of API_KEY
-- (bench/artifacts.sh). Non-200 answers count as errors.
local paths = {}
for line in io.lines(os.getenv("ARTIFACT_PATHS")) do
  if #line > 0 then paths[#paths + 1] = line end
end
local key = "Bearer " .. os.getenv("API_KEY")
local index = 0
request = function()
  index = index % #paths + 1
  return wrk.format("GET", paths[index], { ["Authorization"] = key })
end
